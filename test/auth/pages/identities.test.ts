// A creator links their Telegram account from the authorization host (issue 34, item 2): the
// "Linked accounts" page makes a one-time link into a bot of their team (auth_c-<token>, stored as
// its SHA-256), pressing Start in the bot links the sender as the creator's identity (the first is
// primary), the bot says so and the page lists it; the bot's admin links then answer that account.
// Refused in the chat: the token again, after expiry, through another team's bot, and for an
// account already linked to another creator. Unlink goes through the domain's unlink.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { startAuth } from "../../helpers/auth.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createTestCreator, TEST_PASSWORD, type TestCreator } from "../../helpers/fixtures.ts";
import { FormBrowser } from "../../helpers/form-browser.ts";
import { ApiClient } from "../../helpers/http.ts";
import { startApi } from "../../helpers/server.ts";
import { botStart } from "../../portal/support.ts";
import { installTelegram } from "../../modules/connectors/support.ts";
import { asDomain } from "../../modules/subscriptions/commerce.ts";
import { findOrCreateMember } from "../../../src/modules/members/members.ts";
import { sha256Hex } from "../../../src/security/crypto.ts";

describe("auth pages: a creator links their Telegram account", function () {
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

  interface Fixture {
    creator: TestCreator;
    browser: FormBrowser;
    installation: { id: string; bot_url: string };
    bot: { id: number };
  }

  /** A creator with Telegram installed in their first project, signed in on the authorization host. */
  async function creatorWithBot(label: string): Promise<Fixture> {
    const creator = await createTestCreator({ label });
    const { installation, bot } = await installTelegram(new ApiClient(api.url, creator.token), creator.projectIds[0]!);
    const browser = new FormBrowser(auth.url);
    const res = await browser.post("/sign-in", { email: creator.email, password: TEST_PASSWORD, return_to: "/" }, "/sign-in");
    assert.equal(res.status, 302);
    return { creator, browser, installation, bot };
  }

  /** Presses "Link your Telegram account": answers the page and the start payload of the link it shows. */
  async function makeLink(f: Fixture): Promise<{ page: string; payload: string }> {
    const res = await f.browser.post("/identities/link", { installation_id: f.installation.id }, "/identities");
    const page = await res.text();
    assert.equal(res.status, 201, page);
    const link = /href="(https?:\/\/[^"]+\?start=([^"&]+))"/.exec(page);
    assert.ok(link, page);
    assert.ok(link[1]!.startsWith(`${f.installation.bot_url}?start=`), link[1]);
    return { page, payload: link[2]! };
  }

  const start = (f: Fixture, userId: number, payload: string) => botStart(api.url, f.installation.id, f.bot.id, userId, payload);
  const identitiesOf = async (userId: string) => (await testDatabase()).db("identities").where({ user_id: userId }).orderBy("linked_at");

  it("links the account that pressed Start, once: the first is primary, the page lists it, the bot's admin links answer it", async () => {
    const f = await creatorWithBot("identity-link");
    const home = await (await f.browser.get("/")).text();
    assert.match(home, /href="\/identities">Linked accounts<\/a>/);
    const empty = await (await f.browser.get("/identities")).text();
    assert.match(empty, /No linked accounts yet/);
    assert.match(empty, /Link your Telegram account/);

    const { page: made, payload } = await makeLink(f);
    assert.match(payload, /^auth_c-[A-Za-z0-9]{40}$/);
    assert.ok(made.includes(`<code>/start ${payload}</code>`), "the page also gives the message to send the bot");
    const { db } = await testDatabase();
    const [stored] = await db("identity_link_tokens").where({ user_id: f.creator.userId });
    assert.equal(stored.token_hash, sha256Hex(payload.slice("auth_".length)), "only the token's hash is kept");

    // A member of the project, for the admin link; the creator's account is not linked yet: home screen.
    const { member } = await asDomain(f.creator, (ctx) =>
      findOrCreateMember(ctx, f.creator.projectIds[0]!, { connectorKey: "telegram", externalUserId: "4242", displayName: "Bea Member" }),
    );
    const admin = randomInt(10_000_000, 99_999_999);
    assert.match(await start(f, admin, `-check_-4242`), /Plans and your memberships/);

    assert.match(await start(f, admin, payload), /now linked to your SubBridge account as your primary account/);
    const [identity] = await identitiesOf(f.creator.userId);
    assert.deepEqual(
      [identity.connector, identity.account_id, identity.display_name, identity.is_primary],
      ["telegram", String(admin), "Ada Member", true],
    );
    assert.equal((await db("identity_link_tokens").where({ id: stored.id }).first()).identity_id, identity.id);

    const listed = await (await f.browser.get("/identities")).text();
    assert.match(listed, /Telegram <span class="badge">Primary<\/span>/);
    assert.match(listed, new RegExp(`Ada Member\\s*<span class="hint">\\(${admin}\\)</span>`));

    // The admin link now answers the linked account (admin.ts's check), and only it.
    assert.match(await start(f, admin, `-check_-4242`), new RegExp(`^Bea Member: ${member.status}`));
    assert.match(await start(f, admin + 1, `-check_-4242`), /Plans and your memberships/);

    // The token again, by anyone: already used.
    assert.match(await start(f, admin, payload), /already used/);
    assert.match(await start(f, admin + 1, payload), /already used/);
    assert.equal((await identitiesOf(f.creator.userId)).length, 1);

    // A second account: not primary; the default routing is written down as rows (rule 5) and the new account added.
    const second = admin + 2;
    assert.match(await start(f, second, (await makeLink(f)).payload), /now linked to your SubBridge account\. Admin links/);
    const destinations = await db("alert_destinations").where({ user_id: f.creator.userId }).orderBy("position");
    assert.deepEqual(
      destinations.map((d) => [d.kind, d.target]),
      [
        ["connector_identity", String(admin)],
        ["email", f.creator.email],
        ["connector_identity", String(second)],
      ],
    );
  });

  it("refuses in the chat an expired link, another bot's link and an account linked to another creator", async () => {
    const a = await creatorWithBot("identity-a");
    const b = await creatorWithBot("identity-b");
    const { db } = await testDatabase();
    const account = randomInt(10_000_000, 99_999_999);

    const late = (await makeLink(a)).payload;
    await db("identity_link_tokens")
      .where({ token_hash: sha256Hex(late.slice("auth_".length)) })
      .update({ expires_at: new Date(Date.now() - 1000) });
    assert.match(await start(a, account, late), /expired/);

    // A's link pressed in B's bot: not valid there (the link belongs to A's team's bot).
    const ofA = (await makeLink(a)).payload;
    assert.match(await start(b, account, ofA), /not valid for this bot/);
    assert.equal((await identitiesOf(a.creator.userId)).length, 0);
    assert.match(await start(a, account, ofA), /now linked/);

    // The account is A's: B's link refuses it and stays usable by another account.
    const ofB = (await makeLink(b)).payload;
    assert.match(await start(b, account, ofB), /already linked to another SubBridge creator/);
    assert.equal((await identitiesOf(b.creator.userId)).length, 0);
    assert.match(await start(b, account + 1, ofB), /now linked/);
    assert.equal((await identitiesOf(b.creator.userId))[0].account_id, String(account + 1));
  });

  it("unlinks from the page through the domain's unlink; another creator's identity is not found", async () => {
    const a = await creatorWithBot("identity-unlink");
    const b = await creatorWithBot("identity-other");
    const account = randomInt(10_000_000, 99_999_999);
    assert.match(await start(a, account, (await makeLink(a)).payload), /now linked/);
    const [identity] = await identitiesOf(a.creator.userId);

    const foreign = await b.browser.post(`/identities/${identity.id}/unlink`, {}, "/identities");
    assert.equal(foreign.status, 404);
    const withoutCsrf = await a.browser.request("POST", `/identities/${identity.id}/unlink`, {});
    assert.equal(withoutCsrf.status, 403);
    assert.equal((await identitiesOf(a.creator.userId)).length, 1);

    const res = await a.browser.post(`/identities/${identity.id}/unlink`, {}, "/identities");
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/identities?done=unlinked");
    assert.equal((await identitiesOf(a.creator.userId)).length, 0);
    assert.match(await (await a.browser.get("/identities?done=unlinked")).text(), /The account was unlinked/);
    const { db } = await testDatabase();
    assert.equal((await db("activity_log").where({ event: "identity_unlinked", subject_id: a.creator.userId })).length, 1);
    // Unlinked, the admin link opens the home screen again.
    assert.match(await start(a, account, `-check_-${account}`), /Plans and your memberships/);
  });
});
