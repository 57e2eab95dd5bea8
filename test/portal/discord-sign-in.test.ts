// A member's way in on Discord (issue 45): the installation's entry (its bot_url) sends the browser
// to Discord's consent screen (the simulated one), Discord answers the portal's one callback, and
// the member is signed in as the Discord account, with the grant kept sealed; a deep link's start
// payload (an access code) is then redeemed and the role given in one Add Guild Member call, or,
// for a member already in the server, added on its own. The callback is bound to the browser that
// started it and works once.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { testDatabase } from "../helpers/backends.ts";
import { useApiWithCreator } from "../helpers/suite.ts";
import { authorizeOnDiscord as authorizeAs, newDiscordAuthorization, testPlatform, PORTAL_URL } from "../helpers/platforms.ts";
import { installPath } from "../modules/connectors/support.ts";
import { codesFor, seedPlan } from "../modules/subscriptions/commerce.ts";
import { PortalBrowser, startPortal } from "./support.ts";

describe("portal: signing in with Discord", function () {
  this.timeout(60_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });
  let portal: Awaited<ReturnType<typeof startPortal>>;
  let installation: { id: string; bot_url: string; platform_account_id: string };
  let handle: string;
  before(async () => {
    portal = await startPortal();
    const projectId = suite.creator.projectIds[0]!;
    const { code } = await newDiscordAuthorization();
    const res = await suite.client.post(installPath(projectId, "discord"), { oauth: { code, redirect_uri: "https://dashboard.test/discord" } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    installation = res.body.data;
    ({ handle } = await (await testDatabase()).db("projects").where({ id: projectId }).first("handle"));
  });
  after(() => portal?.close());

  const person = () => ({ id: String(300_000_000_000_000_000n + BigInt(randomInt(1, 2 ** 47))), name: `Dee ${randomInt(1000)}` });
  const entryPath = (query: string) => `/connectors/discord/${installation.id}${query}`;

  it("gives the installation an entry on the portal, and the portal offers Sign in with Discord through it", async () => {
    assert.equal(installation.bot_url, `${PORTAL_URL}/connectors/discord/${installation.id}`);
    const page = await (await fetch(`${portal.url}/${handle}`)).text();
    assert.match(
      page,
      new RegExp(`<a\\s+class="button"\\s+href="${portal.url}/connectors/discord/${installation.id}[^"]*"\\s*>Sign in with Discord</a`),
    );
  });

  it("signs the member in as their Discord account, redeems the deep link's code and adds them to the server with the role [claim discord.capabilities.portal_login discord.overview.members-sign-in-with-discord-paying]", async () => {
    const role = String(400_000_000_000_000_000n + BigInt(randomInt(1, 2 ** 47)));
    const plan = await seedPlan(suite.creator, { connector: "discord", resources: [{ mode: "role", title: "Gold role", platformRef: role }] });
    const [code] = await codesFor(suite.creator, plan);
    const browser = new PortalBrowser(portal.url);
    const entry = await browser.get(entryPath(`?start=${code}`));
    assert.equal(entry.status, 302);
    const fake = await testPlatform();
    const authorizeUrl = entry.headers.get("location")!;
    assert.ok(authorizeUrl.startsWith(`${fake.url}/oauth2/authorize?`), authorizeUrl);
    assert.equal(new URL(authorizeUrl).searchParams.get("scope"), "identify guilds.join");
    const dee = person();
    const callback = new URL(await authorizeAs(authorizeUrl, dee));
    assert.equal(`${callback.origin}${callback.pathname}`, `${portal.url}/connectors/discord/callback`);

    // Another browser cannot use the answer; the one that started it can, once.
    assert.equal((await new PortalBrowser(portal.url).get(`${callback.pathname}${callback.search}`)).status, 400);
    const landed = await browser.get(`${callback.pathname}${callback.search}`);
    assert.equal(landed.status, 200);
    assert.match(await landed.text(), /Gold role/);
    // Again: the browser's key changed at sign-in, so the handoff is no longer its.
    assert.equal((await browser.get(`${callback.pathname}${callback.search}`)).status, 400);

    const { db } = await testDatabase();
    const member = await db("members").where({ project_id: plan.projectId, connector_key: "discord", external_user_id: dee.id }).first();
    assert.equal(member.display_name, dee.name);
    const kept = await db("member_platform_grants").where({ member_id: member.id }).first("sealed");
    assert.ok(kept && !kept.sealed.includes("access_token"), "the grant is kept sealed");
    const held = fake.calls.filter((c) => c.method === "PUT" && c.name === `/guilds/${installation.platform_account_id}/members/${dee.id}`);
    assert.equal(held.length, 1, "one Add Guild Member call");
    assert.deepEqual(held[0]!.params.roles, [role]);
    const grant = await db("access_grants").where({ member_id: member.id }).first("status");
    assert.equal(grant.status, "granted");
    // Signed in: the account page is theirs.
    assert.match(await (await browser.get(`/${handle}/account`)).text(), new RegExp(dee.name));

    // A second code for a member already in the server: the role is added on its own.
    const second = String(500_000_000_000_000_000n + BigInt(randomInt(1, 2 ** 47)));
    const plan2 = await seedPlan(suite.creator, { connector: "discord", resources: [{ mode: "role", title: "Silver role", platformRef: second }] });
    await db("subscriptions").where({ member_id: member.id }).update({ status: "expired" });
    const [code2] = await codesFor(suite.creator, plan2);
    const again = new URL(await authorizeAs((await browser.get(entryPath(`?start=${code2}`))).headers.get("location")!, dee));
    assert.equal((await browser.get(`${again.pathname}${again.search}`)).status, 200);
    assert.ok(
      fake.calls.some((c) => c.method === "PUT" && c.name === `/guilds/${installation.platform_account_id}/members/${dee.id}/roles/${second}`),
    );
  });

  it("returns to the page the member came from, and says so when they cancel on Discord", async () => {
    const browser = new PortalBrowser(portal.url);
    const entry = await browser.get(entryPath(`?return_to=${encodeURIComponent(`/${handle}?plan=x`)}`));
    const back = new URL(await authorizeAs(entry.headers.get("location")!, person()));
    const landed = await browser.get(`${back.pathname}${back.search}`);
    assert.equal(landed.status, 303);
    assert.equal(landed.headers.get("location"), `/${handle}?plan=x`);

    const cancelled = await browser.get(entryPath(""));
    const state = new URL(cancelled.headers.get("location")!).searchParams.get("state")!;
    const page = await browser.get(`/connectors/discord/callback?error=access_denied&state=${encodeURIComponent(state)}`);
    assert.equal(page.status, 400);
    assert.match(await page.text(), /Sign-in cancelled/);
  });

  it("spends the address's portal action budget on each entry (a GET that writes a handoff): the 31st in a minute is 429", async () => {
    const browser = new PortalBrowser(portal.url);
    for (let i = 0; i < 30; i++) assert.equal((await browser.get(entryPath(""))).status, 302);
    const refused = await browser.get(entryPath(""));
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get("retry-after")) > 0);
  });

  it("refuses an entry of no installation and a callback of no sign-in", async () => {
    const browser = new PortalBrowser(portal.url);
    assert.equal((await browser.get("/connectors/discord/00000000-0000-4000-8000-000000000000")).status, 404);
    assert.equal((await browser.get("/connectors/discord/not-an-id")).status, 404);
    assert.equal((await browser.get("/connectors/telegram/callback?code=x&state=y")).status, 404);
    assert.equal((await browser.get("/connectors/discord/callback?code=x&state=00000000-0000-4000-8000-000000000000.x")).status, 400);
  });
});
