// A creator links their Discord account from the authorization host (issue 45): "Link your Discord
// account" on Linked accounts sends the browser to Discord's consent screen (the simulated one)
// asking only `identify`, with a state kept in the creator's session; Discord answers the host's
// callback, which links the account as the Telegram link does (primary when first, the activity
// entry, one creator per account) and works once. Unlink is the same as for Telegram. An alert
// routed to the Discord account arrives as a direct message from the bot of the creator's server.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { raiseAlert } from "../../../src/modules/alerts/raise.ts";
import { sendDueBotMessages } from "../../../src/workers/bot-messages/worker.ts";
import { startAuth } from "../../helpers/auth.ts";
import { testDatabase, testKv } from "../../helpers/backends.ts";
import { createTestCreator, TEST_PASSWORD, type TestCreator } from "../../helpers/fixtures.ts";
import { FormBrowser } from "../../helpers/form-browser.ts";
import { ApiClient } from "../../helpers/http.ts";
import { authorizeOnDiscord, newDiscordAuthorization, testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { repositoryConnectorRegistry, startApi, TEST_APP_KEY, testLogger } from "../../helpers/server.ts";
import { installPath } from "../../modules/connectors/support.ts";

describe("auth pages: a creator links their Discord account", function () {
  this.timeout(60_000);
  let api: Awaited<ReturnType<typeof startApi>>;
  let auth: Awaited<ReturnType<typeof startAuth>>;
  before(async () => {
    api = await startApi();
    auth = await startAuth();
  });
  after(async () => {
    await auth?.close();
    await api?.close();
  });

  /** A creator signed in on the authorization host. */
  async function signedIn(label: string): Promise<{ creator: TestCreator; browser: FormBrowser }> {
    const creator = await createTestCreator({ label });
    const browser = new FormBrowser(auth.url);
    const res = await browser.post("/sign-in", { email: creator.email, password: TEST_PASSWORD, return_to: "/" }, "/sign-in");
    assert.equal(res.status, 302);
    return { creator, browser };
  }

  const person = () => ({ id: String(600_000_000_000_000_000n + BigInt(randomInt(1, 2 ** 47))), name: `Cree ${randomInt(1000)}` });

  /** Presses "Link your Discord account" and authorizes on the simulated consent screen as `who`: the callback's path and query. */
  async function authorizeLink(browser: FormBrowser, who: { id: string; name: string }): Promise<string> {
    const page = await (await browser.get("/identities")).text();
    assert.match(page, /<a class="button" href="\/identities\/discord\/start">Link your Discord account<\/a>/);
    const start = await browser.get("/identities/discord/start");
    assert.equal(start.status, 302);
    const authorizeUrl = new URL(start.headers.get("location")!);
    assert.equal(`${authorizeUrl.origin}${authorizeUrl.pathname}`, `${(await testPlatform()).url}/oauth2/authorize`);
    assert.equal(authorizeUrl.searchParams.get("scope"), "identify", "linking asks only who the creator is");
    const callback = new URL(await authorizeOnDiscord(authorizeUrl.toString(), who));
    assert.equal(`${callback.origin}${callback.pathname}`, `${auth.url}/identities/discord/callback`);
    return `${callback.pathname}${callback.search}`;
  }

  const identitiesOf = async (userId: string) => (await testDatabase()).db("identities").where({ user_id: userId }).orderBy("linked_at");

  it("links the account the creator signed in with on Discord, once, and lists it", async () => {
    const { creator, browser } = await signedIn("discord-link");
    const who = person();
    const callback = await authorizeLink(browser, who);

    // Another browser (another creator's session, or none) cannot use the answer.
    const other = await signedIn("discord-link-other");
    assert.equal((await other.browser.get(callback)).status, 400);
    assert.equal((await new FormBrowser(auth.url).get(callback)).status, 302, "no session: off to sign in");

    const done = await browser.get(callback);
    assert.equal(done.status, 303, await done.text());
    assert.equal(done.headers.get("location"), "/identities?done=linked");
    const [identity] = await identitiesOf(creator.userId);
    assert.deepEqual([identity.connector, identity.account_id, identity.display_name, identity.is_primary], ["discord", who.id, who.name, true]);
    const { db } = await testDatabase();
    const activity = await db("activity_log").where({ event: "identity_linked", subject_id: creator.userId });
    assert.equal(activity.length, 1);
    const listed = await (await browser.get("/identities?done=linked")).text();
    assert.match(listed, /The account is linked to your SubBridge account/);
    assert.match(listed, /Discord <span class="badge">Primary<\/span>/);
    assert.match(listed, new RegExp(`${who.name}\\s*<span class="hint">\\(${who.id}\\)</span>`));

    // The state works once: the same answer again is refused and links nothing more.
    assert.equal((await browser.get(callback)).status, 400);
    assert.equal((await identitiesOf(creator.userId)).length, 1);
  });

  it("refuses an account linked to another creator, a cancelled consent and an expired state", async () => {
    const a = await signedIn("discord-a");
    const b = await signedIn("discord-b");
    const who = person();
    assert.equal((await a.browser.get(await authorizeLink(a.browser, who))).status, 303);

    const taken = await b.browser.get(await authorizeLink(b.browser, who));
    assert.equal(taken.status, 409);
    assert.match(await taken.text(), /already linked to another SubBridge creator/);
    assert.equal((await identitiesOf(b.creator.userId)).length, 0);

    const state = new URL(`${auth.url}${await authorizeLink(b.browser, person())}`).searchParams.get("state")!;
    const cancelled = await b.browser.get(`/identities/discord/callback?error=access_denied&state=${encodeURIComponent(state)}`);
    assert.equal(cancelled.status, 400);
    assert.match(await cancelled.text(), /not authorized on Discord, so nothing changed/);

    // Past ten minutes the state is stale: the same session on a host whose clock is 11 minutes on.
    const callback = await authorizeLink(b.browser, person());
    const late = await startAuth({ now: () => new Date(Date.now() + 11 * 60_000) });
    try {
      const browser = new FormBrowser(late.url);
      for (const [name, value] of b.browser.cookies) browser.cookies.set(name, value);
      const expired = await browser.get(callback);
      assert.equal(expired.status, 410);
      assert.match(await expired.text(), /expired/);
    } finally {
      await late.close();
    }
    assert.equal((await identitiesOf(b.creator.userId)).length, 0);
  });

  it("unlinks a Discord account as a Telegram one", async () => {
    const { creator, browser } = await signedIn("discord-unlink");
    assert.equal((await browser.get(await authorizeLink(browser, person()))).status, 303);
    const [identity] = await identitiesOf(creator.userId);
    const res = await browser.post(`/identities/${identity.id}/unlink`, {}, "/identities");
    assert.equal(res.status, 303);
    assert.equal((await identitiesOf(creator.userId)).length, 0);
  });

  it("sends an alert routed to the Discord account as a direct message from the bot of the creator's server", async () => {
    const { creator, browser } = await signedIn("discord-alert");
    const projectId = creator.projectIds[0]!;
    const { code } = await newDiscordAuthorization();
    const install = await new ApiClient(api.url, creator.token).post(installPath(projectId, "discord"), {
      oauth: { code, redirect_uri: "https://dashboard.test/discord" },
    });
    assert.equal(install.status, 201, JSON.stringify(install.body));
    const who = person();
    assert.equal((await browser.get(await authorizeLink(browser, who))).status, 303);

    const { db } = await testDatabase();
    const [id] = await raiseAlert(
      db,
      new Date(),
      { userIds: [creator.userId] },
      { class: "sales", title: "A sale", body: "A sale: body", projectId },
    );
    const row = await db("creator_alerts").where({ id }).first();
    assert.deepEqual([row.sent_to_accounts, row.sent_to_email], [[{ connector: "discord", account_id: who.id }], false]);
    const env = { connectors: repositoryConnectorRegistry(), platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY };
    const sent = await sendDueBotMessages({
      db,
      kv: await testKv(),
      env,
      logger: testLogger,
      now: new Date(),
      installations: [install.body.data.id],
    });
    assert.deepEqual(
      sent.filter((o) => o.message.recipient === who.id).map((o) => o.result),
      ["sent"],
    );
    assert.deepEqual((await testPlatform()).discordDms(who.id), ["A sale\n\nA sale: body"]);
  });
});
