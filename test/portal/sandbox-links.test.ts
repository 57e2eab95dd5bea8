// A sandbox's portal (issue 47): its Telegram bots live on the simulated Telegram, so "Pay with
// Telegram Stars" and the connector's portal button lead to the simulated Telegram page with the
// bot and the start payload, where the message a Start button would send is filled in; a portal
// with the real Telegram keeps the t.me links (checkout.test.ts).
import assert from "node:assert/strict";
import { testDatabase } from "../helpers/backends.ts";
import { testPlatform } from "../helpers/platforms.ts";
import { useApiWithCreator } from "../helpers/suite.ts";
import { seedPlan } from "../modules/subscriptions/commerce.ts";
import { addStarsMethod } from "../modules/payments/methods.ts";
import { projectWithPlan, startPortal, type PortalProjectFixture } from "./support.ts";

const escaped = (text: string) => text.replaceAll("&", "&amp;");

describe("subscriber portal in a sandbox: links to the simulated Telegram", function () {
  this.timeout(60_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });
  let portal: Awaited<ReturnType<typeof startPortal>>;
  let fixture: PortalProjectFixture;
  let starsPlan: string;
  let simulatorPage: string;
  let username: string;

  before(async () => {
    simulatorPage = `${(await testPlatform()).url}/_sim/telegram`;
    portal = await startPortal({ telegramSimulatorPage: simulatorPage });
    fixture = await projectWithPlan(suite);
    await addStarsMethod(suite.creator, fixture.projectId);
    starsPlan = (await seedPlan(suite.creator)).planId;
    const { db } = await testDatabase();
    await db("plans").where({ id: starsPlan }).update({ name: "Night Owl stars", currency: "XTR", amount_minor: 250 });
    username = new URL(fixture.installation.bot_url).pathname.slice(1);
  });
  after(() => portal?.close());

  it("points Pay with Telegram Stars and Open in Telegram at the simulated page, with the bot and the payload", async () => {
    assert.match(fixture.installation.bot_url, /^https:\/\/t\.me\/\w+$/, "the installation keeps its t.me address");
    const page = await (await fetch(`${portal.url}/${fixture.handle}`)).text();
    const stars = `${simulatorPage}?bot=${username}&start=${starsPlan}`;
    assert.ok(page.includes(`href="${escaped(stars)}"`), `the Stars link leads to ${stars}`);
    const open = `${simulatorPage}?bot=${username}&start=project_${fixture.projectId}`;
    assert.ok(page.includes(`href="${escaped(open)}"`), `the portal button leads to ${open}`);
    assert.doesNotMatch(page, /href="https:\/\/t\.me\//, "no link to the real Telegram");

    // The simulated page opens the bot's chat with the start message filled in, as Telegram's Start button would send it.
    const simulated = await (await fetch(stars)).text();
    assert.ok(simulated.includes(`value="/start ${starsPlan}" autofocus`), "the start message is filled in");
    assert.match(simulated, new RegExp(`Opened from a start link: .* to start @${username}\\.`));
  });
});
