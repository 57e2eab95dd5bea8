// The account page's broadcasts switch: a signed-in member stops broadcasts and receives them again
// (the same opt-out the bot's /stop and /resume set); a visitor who is not signed in changes nothing.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { testDatabase } from "../helpers/backends.ts";
import { useApiWithCreator } from "../helpers/suite.ts";
import { PortalBrowser, projectWithPlan, signedInAs, startPortal, type PortalProjectFixture } from "./support.ts";

describe("subscriber portal: the broadcasts switch", function () {
  this.timeout(90_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });
  let portal: Awaited<ReturnType<typeof startPortal>>;
  let fixture: PortalProjectFixture;
  before(async () => {
    portal = await startPortal();
    fixture = await projectWithPlan(suite);
  });
  after(() => portal?.close());

  const optedOut = async (userId: number) => {
    const { db } = await testDatabase();
    const row = await db("members")
      .where({ project_id: fixture.projectId, external_user_id: String(userId) })
      .first("broadcasts_opted_out_at");
    return row ? row.broadcasts_opted_out_at !== null : null;
  };

  it("stops and resumes broadcasts for the signed-in member only", async () => {
    const userId = randomInt(1_000_000, 9_999_999);
    const browser = await signedInAs(portal.url, suite.api.url, fixture, userId);
    const account = `/${fixture.handle}/account`;
    assert.match(await (await browser.get(account)).text(), /Stop broadcasts/);
    assert.equal(await optedOut(userId), false);

    const stopped = await browser.post(`${account}/broadcasts`, { receive: "no" }, account);
    assert.equal(stopped.status, 303);
    assert.equal(stopped.headers.get("location"), account);
    assert.equal(await optedOut(userId), true);
    assert.match(await (await browser.get(account)).text(), /Receive broadcasts again/);

    const guest = new PortalBrowser(portal.url);
    const refused = await guest.post(`${account}/broadcasts`, { receive: "yes" }, `/${fixture.handle}`);
    assert.equal(refused.status, 303);
    assert.equal(await optedOut(userId), true, "a visitor changes nobody's choice");

    await browser.post(`${account}/broadcasts`, { receive: "yes" }, account);
    assert.equal(await optedOut(userId), false);
  });
});
