// The subscriber portal over HTTP: a project's page at its current handle only (404 for an unknown
// or superseded handle), strict headers, the sign-in handoff (single use, bound to the browser,
// expiring, proposed by the bot's /start auth_<token> and confirmed on the page of the link the bot
// sends, which names the browser that asked and when), and access-code redemption as the
// signed-in member with refusals in words.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { testDatabase } from "../helpers/backends.ts";
import { useApiWithCreator } from "../helpers/suite.ts";
import { asDomain, codesFor } from "../modules/subscriptions/commerce.ts";
import { changeHandle } from "../../src/modules/projects/handles.ts";
import { projectsTable } from "../../src/modules/projects/tables.ts";
import { EXPIRED_PORTAL_ROWS_KEPT_MS, purgeExpiredPortalRows } from "../../src/modules/portal/jobs.ts";
import {
  botStart,
  confirmationPath,
  confirmInBot as confirmInPhone,
  PortalBrowser,
  projectWithPlan,
  signInThroughBot,
  startPortal,
  type PortalProjectFixture,
} from "./support.ts";

const ANDROID_CHROME = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36";

describe("subscriber portal (HTTP)", function () {
  this.timeout(90_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });
  let portal: Awaited<ReturnType<typeof startPortal>>;
  let fixture: PortalProjectFixture;
  before(async () => {
    portal = await startPortal();
    fixture = await projectWithPlan(suite);
  });
  after(() => portal?.close());

  /** Signs a fresh browser in as a new Telegram account through the handoff. */
  async function signedInBrowser(userId = randomInt(1_000_000, 9_999_999)) {
    const signedIn = await signInThroughBot(portal.url, suite.api.url, fixture, userId);
    assert.equal(signedIn.landed, `/${fixture.handle}/account`);
    return signedIn;
  }

  /** The member opens the bot's link (on their phone, say) and confirms; answers the confirmation page. */
  const confirmInBot = (reply: string) => confirmInPhone(portal.url, reply);

  it("shows the project's page at its current handle: plans, what they grant, the connector's button", async () => {
    const res = await fetch(`${portal.url}/${fixture.handle}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, /text\/html/);
    assert.match(res.headers.get("content-security-policy")!, /script-src 'self'/);
    assert.match(res.headers.get("content-security-policy")!, /frame-ancestors 'none'/);
    assert.equal(res.headers.get("x-frame-options"), "DENY");
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    const page = await res.text();
    assert.ok(!/<script/i.test(page), "no script");
    assert.ok(!/style=/i.test(page), "no inline style");
    assert.match(page, /Night Owls Club/);
    assert.match(page, /Night Owl monthly/);
    assert.match(page, /\$5\.00 every month/);
    assert.match(page, /VIP channel/);
    assert.match(page, /Signed print/);
    const bot = fixture.installation.bot_url;
    assert.ok(page.includes(`href="${bot}?start=project_${fixture.projectId}"`), "the portal_cta through the start link");
    assert.match(page, /Open in Telegram/);
    assert.match(page, /Sign in with Telegram/);
    const css = await fetch(`${portal.url}/assets/portal.css`);
    assert.equal(css.status, 200);
    assert.match(css.headers.get("content-type")!, /text\/css/);
  });

  it("highlights ?plan=<id> and says how it can be bought: here, with no payment method, not online", async () => {
    const page = await (await fetch(`${portal.url}/${fixture.handle}?plan=${fixture.plan.planId}`)).text();
    assert.match(page, /You picked <strong>Night Owl monthly<\/strong>/);
    assert.match(page, /class="plan highlighted"/);
    assert.match(page, /It cannot be bought online right now; if you have an access code, redeem it below\./);
    assert.match(page, /This plan cannot be bought online right now\./);
    // The bot cannot sell it either, so its plan link (which would send the member back here) is not offered.
    assert.ok(!page.includes(`?start=${fixture.plan.planId}`));
    assert.doesNotMatch(page, /Payments are not taken on this page/);
  });

  it("answers 404 for an unknown handle, the host's root and a superseded handle", async () => {
    for (const path of ["/no-such-community-here", "/", "/UPPER", "/assets"]) {
      const res = await fetch(`${portal.url}${path}`);
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get("content-type")!, /text\/html/);
      assert.match(await res.text(), /Not found/);
    }
    const { db } = await testDatabase();
    const [projectId] = suite.creator.projectIds.slice(1);
    const project = await db("projects")
      .where({ id: projectId ?? fixture.projectId })
      .first("id", "handle");
    const old = project.handle as string;
    const next = `moved-${randomInt(100000, 999999)}`;
    await asDomain(suite.creator, async (ctx) => {
      await changeHandle(ctx, project, next);
      await projectsTable.rows(ctx).where({ id: project.id }).update({ handle: next });
    });
    try {
      assert.equal((await fetch(`${portal.url}/${old}`)).status, 404);
      assert.equal((await fetch(`${portal.url}/${old}/account`)).status, 404);
      assert.equal((await fetch(`${portal.url}/${next}`)).status, 200);
    } finally {
      await asDomain(suite.creator, async (ctx) => {
        await changeHandle(ctx, { id: project.id, handle: next }, old);
        await projectsTable.rows(ctx).where({ id: project.id }).update({ handle: old });
      });
    }
  });

  it("signs a member in through the bot's /start auth_<token>; the handoff works once [claim telegram.capabilities.portal_login]", async () => {
    const { browser, waiting, token } = await signedInBrowser();
    const account = await browser.get(`/${fixture.handle}/account`);
    assert.equal(account.status, 200);
    assert.match(await account.text(), /Signed in as\s*<strong>Ada Member<\/strong/);
    // Continue again (the browser's key changed at sign-in, so the handoff is no longer its), and the bot again: both refused.
    assert.equal((await browser.post(waiting, {}, `/${fixture.handle}`)).status, 404);
    assert.match(await botStart(suite.api.url, fixture.installation.id, fixture.bot.id, 4242, `auth_${token}`), /already used/);
    // Signing out ends the session.
    assert.equal((await browser.post(`/${fixture.handle}/sign-out`, {}, `/${fixture.handle}`)).status, 303);
    assert.equal((await browser.get(`/${fixture.handle}/account`)).status, 303);
  });

  it("lets only the browser that started a handoff see it or finish it", async () => {
    const mine = new PortalBrowser(portal.url);
    const started = await mine.post(`/${fixture.handle}/sign-in`, { installation: fixture.installation.id }, `/${fixture.handle}`);
    const waiting = started.headers.get("location")!;
    const token = /start=auth_([A-Za-z0-9]+)/.exec(await (await mine.get(waiting)).text())![1]!;
    // Before the bot confirms: Continue waits.
    const early = await mine.post(waiting, {}, waiting);
    assert.equal(early.status, 303);
    assert.match(early.headers.get("location")!, /\?waiting$/);
    await confirmInBot(await botStart(suite.api.url, fixture.installation.id, fixture.bot.id, randomInt(1_000_000, 9_999_999), `auth_${token}`));
    const other = new PortalBrowser(portal.url);
    assert.equal((await other.get(waiting)).status, 404);
    assert.equal((await other.post(waiting, {}, `/${fixture.handle}`)).status, 404);
    // Without a CSRF token: refused.
    assert.equal((await mine.request("POST", waiting, {})).status, 403);
    assert.equal((await mine.post(waiting, {}, waiting)).status, 303);
  });

  it("signs nobody in from the bot's Start alone: the link's page names the browser that asked and when, and only its button confirms", async () => {
    // Someone starts a sign-in in their browser and gets the start link pressed by another person's account.
    const requester = new PortalBrowser(portal.url, ANDROID_CHROME);
    const started = await requester.post(`/${fixture.handle}/sign-in`, { installation: fixture.installation.id }, `/${fixture.handle}`);
    const waiting = started.headers.get("location")!;
    const waitingPage = await (await requester.get(waiting)).text();
    assert.match(waitingPage, /names this browser as\s*<strong>Chrome on Android<\/strong>/);
    const token = /start=auth_([A-Za-z0-9]+)/.exec(waitingPage)![1]!;
    const reply = await botStart(suite.api.url, fixture.installation.id, fixture.bot.id, randomInt(1_000_000, 9_999_999), `auth_${token}`);
    assert.match(reply, /Someone asked to sign in to the portal as you from Chrome on Android, at \d\d:\d\d UTC on \d{4}-\d\d-\d\d\./);
    assert.match(reply, /If it was not you, ignore this message: nobody is signed in\./);
    assert.doesNotMatch(reply, /You are signed in/);
    const { db } = await testDatabase();
    const id = waiting.split("/").pop();
    assert.equal((await db("portal_handoffs").where({ id }).first("member_id")).member_id, null, "Start alone claims nothing");
    const early = await requester.post(waiting, {}, waiting);
    assert.match(early.headers.get("location")!, /\?waiting$/, "the requesting browser still waits");

    // The confirmation page, before its button: who, which browser, when.
    const phone = new PortalBrowser(portal.url);
    const path = confirmationPath(reply);
    const shown = await phone.get(path);
    const page = await shown.text();
    assert.equal(shown.status, 200, page.slice(0, 500));
    assert.match(page, /A sign-in to <strong>Night Owls Club<\/strong> as <strong>Ada Member<\/strong> \(Telegram\) was asked for from:/);
    assert.match(page, /<dt>Browser<\/dt>\s*<dd><strong>Chrome on Android<\/strong><\/dd>/);
    assert.match(page, /<dt>Asked at<\/dt>\s*<dd>\d\d:\d\d UTC on \d{4}-\d\d-\d\d, (less than a minute|\d+ minutes?) ago<\/dd>/);
    assert.ok(page.indexOf("Chrome on Android") < page.indexOf('type="submit"'), "the browser is named before the button");
    assert.equal((await db("portal_handoffs").where({ id }).first("member_id")).member_id, null, "opening the link claims nothing");
    // A guessed or altered link finds nothing; without the page's CSRF token the button is refused.
    assert.equal((await phone.get(`${path.slice(0, -4)}AAAA`)).status, 404);
    assert.equal((await phone.request("POST", path, {})).status, 403);

    const confirmed = await phone.post(path, {}, path);
    assert.match(await confirmed.text(), /Confirmed\. Go back to <strong>Chrome on Android<\/strong>/);
    const done = await requester.post(waiting, {}, waiting);
    assert.equal(done.headers.get("location"), `/${fixture.handle}/account`);
    // The link after use: the sign-in is over.
    assert.equal((await phone.get(path)).status, 410);
  });

  it("refuses an expired handoff, in the bot and in the browser", async () => {
    const browser = new PortalBrowser(portal.url);
    const started = await browser.post(`/${fixture.handle}/sign-in`, { installation: fixture.installation.id }, `/${fixture.handle}`);
    const waiting = started.headers.get("location")!;
    const token = /start=auth_([A-Za-z0-9]+)/.exec(await (await browser.get(waiting)).text())![1]!;
    const { db } = await testDatabase();
    await db("portal_handoffs")
      .where({ id: waiting.split("/").pop() })
      .update({ expires_at: new Date(Date.now() - 1000) });
    assert.match(await botStart(suite.api.url, fixture.installation.id, fixture.bot.id, 5151, `auth_${token}`), /expired/);
    const res = await browser.post(waiting, {}, `/${fixture.handle}`);
    assert.equal(res.status, 410);
    assert.match(await res.text(), /expired/);
    const row = await db("portal_handoffs")
      .where({ id: waiting.split("/").pop() })
      .first();
    assert.notEqual(row.token_hash, token, "the token is stored hashed");
  });

  it("redeems an access code as the signed-in member, with refusals in words", async () => {
    const guest = new PortalBrowser(portal.url);
    const [first, second, third] = await codesFor(suite.creator, fixture.plan, 3);
    const refused = await guest.post(`/${fixture.handle}/redeem`, { code: first! }, `/${fixture.handle}`);
    assert.equal(refused.status, 401);
    assert.match(await refused.text(), /Sign in first/);

    const { browser } = await signedInBrowser();
    const redeemed = await browser.post(`/${fixture.handle}/redeem`, { code: first! }, `/${fixture.handle}/account`);
    assert.equal(redeemed.status, 303);
    const account = await (await browser.get(redeemed.headers.get("location")!)).text();
    assert.match(account, /Your access code worked/);
    assert.match(account, /Night Owl monthly<\/th>\s*<td>Active<\/td>/);
    assert.match(account, /Signed print/);

    const again = await browser.post(`/${fixture.handle}/redeem`, { code: first! }, `/${fixture.handle}/account`);
    assert.match(await again.text(), /already been used/);
    assert.match(
      await (await browser.post(`/${fixture.handle}/redeem`, { code: second! }, `/${fixture.handle}/account`)).text(),
      /already have an active membership/,
    );
    assert.match(
      await (await browser.post(`/${fixture.handle}/redeem`, { code: "nope" }, `/${fixture.handle}/account`)).text(),
      /No access code of this community matches/,
    );
    const [expiring] = await codesFor(suite.creator, fixture.plan, 1, new Date(Date.now() + 60_000));
    const { db } = await testDatabase();
    await db("access_codes")
      .where({ status: "unredeemed", project_id: fixture.projectId })
      .whereNotNull("expires_at")
      .update({ expires_at: new Date(Date.now() - 1000) });
    const { browser: other } = await signedInBrowser();
    assert.match(await (await other.post(`/${fixture.handle}/redeem`, { code: expiring! }, `/${fixture.handle}/account`)).text(), /has expired/);
    // The third code still works for that other member.
    assert.equal((await other.post(`/${fixture.handle}/redeem`, { code: third! }, `/${fixture.handle}/account`)).status, 303);
  });

  it("leaves expired handoffs and sessions to portal.purge-expired, a day after they expire", async () => {
    const { browser } = await signedInBrowser();
    assert.equal((await browser.get(`/${fixture.handle}/account`)).status, 200);
    const { db } = await testDatabase();
    const mine = async () => ({
      handoffs: (await db("portal_handoffs").where({ project_id: fixture.projectId })).length,
      sessions: (await db("portal_sessions").where({ project_id: fixture.projectId })).length,
    });
    const before = await mine();
    assert.ok(before.handoffs > 0 && before.sessions > 0);
    const latest = (await db("portal_sessions").where({ project_id: fixture.projectId }).max({ at: "expires_at" }).first()) as { at: Date };
    await purgeExpiredPortalRows.run({ db, now: new Date(Date.now()) });
    assert.deepEqual(await mine(), before, "nothing still usable (or expired less than a day ago) goes");
    await purgeExpiredPortalRows.run({ db, now: new Date(new Date(latest.at).getTime() + EXPIRED_PORTAL_ROWS_KEPT_MS + 60_000) });
    assert.deepEqual(await mine(), { handoffs: 0, sessions: 0 });
    assert.equal((await browser.get(`/${fixture.handle}/account`)).status, 303, "the purged session signs in no more: sent to the project page");
  });

  it("limits portal actions to 30 a minute per address, with a page saying how long to wait", async () => {
    const browser = new PortalBrowser(portal.url);
    for (let i = 0; i < 30; i++) assert.notEqual((await browser.post(`/${fixture.handle}/sign-out`, {}, `/${fixture.handle}`)).status, 429);
    const limited = await browser.post(`/${fixture.handle}/sign-out`, {}, `/${fixture.handle}`);
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get("retry-after")) > 0);
    assert.match(await limited.text(), /Too many attempts from this network\. Wait \d+ seconds, then try again\./);
    assert.notEqual(
      (await new PortalBrowser(portal.url).post(`/${fixture.handle}/sign-out`, {}, `/${fixture.handle}`)).status,
      429,
      "another address is not limited",
    );
  });
});
