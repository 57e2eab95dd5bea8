// The payments page on the authorization host (issue 33, item 1): the creator connects Stripe
// through the Stripe twin's onboarding and enables Telegram Stars; the method exists (enabled,
// payment_method.created, an activity entry) only once Stripe says the account takes charges, on
// the return or on Stripe's account.updated. Refused: no session, another team's project or
// connection (404), a role without the ability (403), a form without its CSRF token (403), and a
// deployment without Stripe (no button, 404 on the form).
import assert from "node:assert/strict";
import { startAuth } from "../../helpers/auth.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { eventsOf, assertValidEvent } from "../../helpers/events.ts";
import { createTestCreator, joinTeamWithToken } from "../../helpers/fixtures.ts";
import { FormBrowser } from "../../helpers/form-browser.ts";
import { seedInstallation } from "../../helpers/platforms.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";
import { providerRegistry } from "../../../src/modules/payments/providers.ts";
import { createStripeClient } from "../../../src/modules/payments/stripe/client.ts";
import { startStripeTwin, type StripeTwin } from "../../../src/simulators/stripe/index.ts";
import type { PaymentMethodRow } from "../../../src/modules/payment-methods/tables.ts";
import { testPlatformEndpoints } from "../../helpers/platforms.ts";
import { paymentsPages, useStripePages, type StripePages } from "./payments-support.ts";

describe("auth pages: payments (connect Stripe, enable Telegram Stars)", function () {
  this.timeout(60_000);
  const hosts = useStripePages();
  let twin: StripeTwin;
  let api: StripePages["api"];
  let auth: StripePages["auth"];
  before(() => ({ twin, api, auth } = hosts));

  const { signedIn, connect, follow, accountOf } = paymentsPages(() => ({ twin, authUrl: auth.url }));

  /** The project's methods of the providers this page connects (every project starts with an access-codes method). */
  async function methodsOf(projectId: string): Promise<PaymentMethodRow[]> {
    const { db } = await testDatabase();
    return (await db("payment_methods")
      .where({ project_id: projectId })
      .whereIn("provider", ["stripe", "telegram_stars"])
      .orderBy("created_at")
      .select("*")) as PaymentMethodRow[];
  }

  /** The team's payment_method.created events of the methods this page makes (not the project's own access-codes method). */
  const createdEvents = async (teamId: string, provider = "stripe") =>
    (await eventsOf(teamId, "payment_method.created")).filter((e) => e.data.payment_method.provider === provider);

  /** The newest activity entry of a method's creation on the team. */
  const creationEntry = async (teamId: string) =>
    (await testDatabase())
      .db("activity_log")
      .where({ team_id: teamId, event: "payment_method_created" })
      .orderBy("created_at", "desc")
      .first("causer_id", "actor_kind");

  it("sends a signed-out visitor to sign in, and back", async () => {
    const res = await new FormBrowser(auth.url).get("/payments");
    assert.equal(res.status, 302);
    assert.equal(res.headers.get("location"), "/sign-in?return_to=%2Fpayments");
  });

  /**
   * Runs `work` with the Connect endpoint disabled on the twin, so the creator's return, not a
   * racing account.updated, is what completes the connection.
   */
  async function withoutConnectEvents(work: () => Promise<void>): Promise<void> {
    const stripe = api.deps.stripe!.client;
    const [endpoint] = (await stripe.webhookEndpoints.list()).data;
    await stripe.webhookEndpoints.update(endpoint!.id, { disabled: true });
    try {
      await work();
    } finally {
      await stripe.webhookEndpoints.update(endpoint!.id, { disabled: false });
    }
  }

  it("connects Stripe: pending until Stripe's onboarding is done, then an enabled method; a second connect reuses the account", () =>
    withoutConnectEvents(async () => {
      const creator = await createTestCreator({ label: "pay-connect" });
      const [projectId] = creator.projectIds;
      const browser = await signedIn(creator);
      const res = await browser.get("/payments");
      // The connect form's answer redirects to the onboarding page: the page's form-action names its origin.
      assert.match(res.headers.get("content-security-policy")!, new RegExp(`form-action 'self' ${twin.url};`));
      const page = await res.text();
      assert.match(page, /<strong>Access codes<\/strong>/);
      assert.doesNotMatch(page, /<strong>Stripe<\/strong>/);
      assert.match(page, /<button type="submit">Connect Stripe<\/button>/);
      assert.match(page, /name="currencies"[\s\S]*?value="USD"/);
      assert.match(await (await browser.get("/")).text(), /<a href="\/payments">Payments<\/a>/);

      const first = await connect(browser, projectId!, "usd, eur");
      const account = accountOf(first);
      // The creator comes back before finishing onboarding: nothing is enabled yet.
      const { db } = await testDatabase();
      const connection = (await db("payment_connections").where({ project_id: projectId }).first()) as {
        id: string;
        account: string;
        status: string;
      };
      assert.deepEqual([connection.account, connection.status], [account, "pending"]);
      const early = await follow(browser, `${auth.url}/payments/connections/${connection.id}/return`);
      assert.equal(early.status, 303);
      assert.equal(early.headers.get("location"), "/payments?done=stripe-pending");
      assert.deepEqual(await methodsOf(projectId!), []);
      const pendingPage = await (await browser.get("/payments?done=stripe-pending")).text();
      assert.match(pendingPage, /Stripe has not finished setting up your account yet/);
      assert.match(pendingPage, /Continue Stripe onboarding/);
      assert.match(pendingPage, /value="USD, EUR"/);

      // A second connect makes no second account: a fresh link for the same one.
      const second = await connect(browser, projectId!, "USD, EUR");
      assert.equal(accountOf(second), account);
      assert.notEqual(second, first);
      assert.equal(twin.calls.filter((c) => c.path === "/v1/accounts" && c.method === "POST").length >= 1, true);
      assert.equal(Number((await db("payment_connections").where({ project_id: projectId }).count({ n: "*" }))[0]!.n), 1);

      // The first link still works once; the twin's page completes onboarding and returns to return_url.
      const done = await fetch(second, { method: "POST", redirect: "manual" });
      assert.equal(done.status, 303);
      const back = await follow(browser, done.headers.get("location")!);
      assert.equal(back.headers.get("location"), "/payments?done=stripe-connected");
      const [method] = await methodsOf(projectId!);
      assert.ok(method);
      assert.deepEqual([method.provider, method.enabled, method.currencies], ["stripe", true, ["USD", "EUR"]]);
      assert.deepEqual(method.billing_cycles, ["day", "week", "month", "year", "lifetime"]);
      // The account is sealed in the method: the provider registry serves it on this project.
      const registry = providerRegistry({
        db,
        stripe: api.deps.stripe!.client,
        connectors: { platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY },
      });
      assert.equal((await registry.providerFor(method))?.method.account, account);
      const created = await createdEvents(creator.teamId);
      assert.equal(created.length, 1);
      assertValidEvent(created[0]!);
      assert.equal(created[0]!.data.payment_method.id, method.id);
      assert.equal(JSON.stringify(created[0]).includes(account), false, "the event never carries the account");
      assert.deepEqual(await creationEntry(creator.teamId), { causer_id: creator.userId, actor_kind: "human" });

      const shown = await (await browser.get("/payments?done=stripe-connected")).text();
      assert.match(shown, /Stripe is connected/);
      assert.match(shown, /<strong>Stripe<\/strong> <span class="badge">On<\/span>/);
      assert.doesNotMatch(shown, /Connect Stripe<\/button>/);
      // Connecting again, or a return from the old link, changes nothing.
      const again = await browser.post(`/payments/projects/${projectId}/stripe`, { currencies: "USD" }, "/payments");
      assert.equal(again.headers.get("location"), "/payments?done=stripe-already");
      const late = await follow(browser, `${auth.url}/payments/connections/${connection.id}/return`);
      assert.equal(late.headers.get("location"), "/payments?done=stripe-connected");
      assert.equal((await methodsOf(projectId!)).length, 1);
      assert.equal((await createdEvents(creator.teamId)).length, 1);
    }));

  it("makes a fresh onboarding link when Stripe sends the creator to refresh_url", async () => {
    const creator = await createTestCreator({ label: "pay-refresh" });
    const browser = await signedIn(creator);
    const link = await connect(browser, creator.projectIds[0]!);
    const { db } = await testDatabase();
    const { id } = (await db("payment_connections").where({ project_id: creator.projectIds[0] }).first("id")) as { id: string };
    const refreshed = await follow(browser, `${auth.url}/payments/connections/${id}/refresh`);
    assert.equal(refreshed.status, 303);
    const fresh = refreshed.headers.get("location")!;
    assert.ok(fresh.startsWith(`${twin.url}/setup/e/${accountOf(link)}/`) && fresh !== link, fresh);
  });

  it("completes a pending connection on Stripe's account.updated when onboarding finishes after the return", async () => {
    const creator = await createTestCreator({ label: "pay-webhook" });
    const [projectId] = creator.projectIds;
    const browser = await signedIn(creator);
    const account = accountOf(await connect(browser, projectId!, "GBP"));
    await twin.completeOnboarding(account);
    await twin.settled();
    const [method] = await methodsOf(projectId!);
    assert.deepEqual([method?.provider, method?.enabled, method?.currencies], ["stripe", true, ["GBP"]]);
    assert.deepEqual(await creationEntry(creator.teamId), { causer_id: null, actor_kind: "webhook" });
    const { db } = await testDatabase();
    // The creator's return afterwards finds it done.
    const { id } = (await db("payment_connections").where({ project_id: projectId }).first("id")) as { id: string };
    const back = await follow(browser, `${auth.url}/payments/connections/${id}/return`);
    assert.equal(back.headers.get("location"), "/payments?done=stripe-connected");
    assert.equal((await createdEvents(creator.teamId)).length, 1);
  });

  it("ends the connection when the creator disconnects SubBridge in Stripe: the method off, the creators alerted once, a new connect starts afresh", async () => {
    const creator = await createTestCreator({ label: "pay-deauthorized" });
    const [projectId] = creator.projectIds;
    const browser = await signedIn(creator);
    const account = accountOf(await connect(browser, projectId!));
    await twin.completeOnboarding(account);
    await twin.deauthorize(account);
    const [method] = await methodsOf(projectId!);
    assert.equal(method?.enabled, false, "members are offered no payment Stripe would refuse");
    const { db } = await testDatabase();
    assert.equal(await db("payment_connections").where({ project_id: projectId }).first(), undefined);
    const alerts = await db("creator_alerts").where({ user_id: creator.userId, about_project_id: projectId, class: "recovery" });
    assert.deepEqual(
      alerts.map((a: { title: string }) => a.title),
      [`${(await db("projects").where({ id: projectId }).first("name")).name}: Stripe was disconnected`],
    );
    assert.match(alerts[0].body, new RegExp(`Stripe account ${account}[^]*connect Stripe again on \\S+/payments\\.`));
    assert.equal((await eventsOf(creator.teamId, "payment_method.updated")).at(-1)?.data.payment_method.enabled, false);
    assert.notEqual(accountOf(await connect(browser, projectId!)), account, "the disconnected account is not reused");
  });

  it("enables Telegram Stars only with the project's bot, and turns methods off, on and removes them", async () => {
    const creator = await createTestCreator({ label: "pay-stars", projects: 2 });
    const [withBot, withoutBot] = creator.projectIds as [string, string];
    await seedInstallation(creator.teamId, withBot);
    const browser = await signedIn(creator);
    const page = await (await browser.get("/payments")).text();
    assert.equal(page.match(/Enable Telegram Stars/g)?.length, 1);
    assert.match(page, /Telegram Stars needs the project's Telegram bot installed/);
    const refused = await browser.post(`/payments/projects/${withoutBot}/stars`, {}, "/payments");
    assert.equal(refused.status, 422);
    assert.match(await refused.text(), /Telegram Stars needs the project&#39;s Telegram bot installed and active/);

    const on = await browser.post(`/payments/projects/${withBot}/stars`, {}, "/payments");
    assert.equal(on.headers.get("location"), "/payments?done=stars-enabled");
    const [stars] = await methodsOf(withBot);
    assert.deepEqual(
      [stars?.provider, stars?.currencies, stars?.billing_cycles, stars?.enabled, stars?.mode],
      ["telegram_stars", ["XTR"], ["month", "lifetime"], true, "live"],
    );
    assert.equal(
      (await browser.post(`/payments/projects/${withBot}/stars`, {}, "/payments")).headers.get("location"),
      "/payments?done=stars-already",
    );

    const base = `/payments/projects/${withBot}/methods/${stars!.id}`;
    assert.equal((await browser.post(`${base}/disable`, {}, "/payments")).headers.get("location"), "/payments?done=disabled");
    assert.equal((await methodsOf(withBot))[0]!.enabled, false);
    assert.match(await (await browser.get("/payments")).text(), /Turn on<\/button>|Turn on\s*<\/button>/);
    assert.equal((await browser.post(`${base}/enable`, {}, "/payments")).headers.get("location"), "/payments?done=enabled");
    assert.equal((await methodsOf(withBot))[0]!.enabled, true);
    assert.deepEqual(
      (await eventsOf(creator.teamId)).filter((e) => e.data.payment_method?.provider === "telegram_stars").map((e) => e.type),
      ["payment_method.created", "payment_method.updated", "payment_method.updated"],
    );
    // A method named under another project of the team is not found there.
    assert.equal((await browser.post(`/payments/projects/${withoutBot}/methods/${stars!.id}/disable`, {}, "/payments")).status, 404);
    assert.equal((await browser.post(`${base}/remove`, {}, "/payments")).headers.get("location"), "/payments?done=removed");
    assert.deepEqual(await methodsOf(withBot), []);
    assert.equal((await browser.post(`${base}/remove`, {}, "/payments")).status, 404);
  });

  it("refuses another team's project and connection (404), a form without its CSRF token (403), and a role without the ability (403)", async () => {
    const owner = await createTestCreator({ label: "pay-owner" });
    const stranger = await createTestCreator({ label: "pay-stranger" });
    const ownerBrowser = await signedIn(owner);
    // Currencies Stripe cannot take are refused on the form (422), before any account is made.
    for (const currencies of ["ZZZ", "XTR", " , "]) {
      const bad = await ownerBrowser.post(`/payments/projects/${owner.projectIds[0]}/stripe`, { currencies }, "/payments");
      assert.equal(bad.status, 422, currencies);
      assert.match(await bad.text(), /That was not done: (ZZZ is not an ISO 4217|XTR \(Telegram Stars\) is taken only|name at least one currency)/);
    }
    const { db } = await testDatabase();
    assert.equal(Number((await db("payment_connections").where({ project_id: owner.projectIds[0] }).count({ n: "*" }))[0]!.n), 0);
    await connect(ownerBrowser, owner.projectIds[0]!);
    const { id } = (await db("payment_connections").where({ project_id: owner.projectIds[0] }).first("id")) as { id: string };

    const strangerBrowser = await signedIn(stranger);
    const other = await strangerBrowser.post(`/payments/projects/${owner.projectIds[0]}/stripe`, { currencies: "USD" }, "/payments");
    assert.equal(other.status, 404);
    assert.equal((await strangerBrowser.post(`/payments/projects/${owner.projectIds[0]}/stars`, {}, "/payments")).status, 404);
    assert.equal((await strangerBrowser.get(`/payments/connections/${id}/return`)).status, 404);
    assert.equal((await strangerBrowser.get(`/payments/connections/${id}/refresh`)).status, 404);
    assert.equal((await strangerBrowser.get(`/payments/connections/not-a-uuid/return`)).status, 404);

    // The owner's own form, without its token.
    await ownerBrowser.get("/payments");
    const forged = await ownerBrowser.request("POST", `/payments/projects/${owner.projectIds[0]}/stripe`, { currencies: "USD" });
    assert.equal(forged.status, 403);
    assert.match(await forged.text(), /This form has expired or was not sent from this site/);

    // A member (the built-in role reads payment methods, manages none): the list without actions; every action 403.
    const member = await createTestCreator({ label: "pay-member" });
    await joinTeamWithToken(owner, member, ["project:view-any"], "member");
    await seedInstallation(owner.teamId, owner.projectIds[0]!);
    const memberBrowser = await signedIn(member);
    assert.equal((await memberBrowser.post("/teams/switch", { team_id: owner.teamId, return_to: "/payments" }, "/payments")).status, 302);
    const page = await memberBrowser.get("/payments");
    assert.equal(page.status, 200);
    const text = await page.text();
    assert.match(text, new RegExp(`Project 1 of ${owner.email.replace(/[.+]/g, "\\$&")}`));
    assert.doesNotMatch(text, /Connect Stripe|Continue Stripe onboarding|Enable Telegram Stars|Turn off|Remove/);
    const refused = await memberBrowser.post(`/payments/projects/${owner.projectIds[0]}/stripe`, { currencies: "USD" }, "/payments");
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /needs project-payment-method:create/);
    assert.equal((await memberBrowser.post(`/payments/projects/${owner.projectIds[0]}/stars`, {}, "/payments")).status, 403);
    assert.equal((await memberBrowser.get(`/payments/connections/${id}/return`)).status, 403);
    // A custom role that cannot see payment methods gets the page's 403.
    const narrow = crypto.randomUUID();
    const now = new Date();
    await db("roles").insert({
      id: narrow,
      team_id: owner.teamId,
      code: "no-payments",
      name: "No payments",
      abilities: JSON.stringify(["project:view-any"]),
      built_in: false,
      created_at: now,
      updated_at: now,
    });
    await db("team_members").where({ team_id: owner.teamId, user_id: member.userId }).update({ role_id: narrow });
    const hidden = await memberBrowser.get("/payments");
    assert.equal(hidden.status, 403);
    assert.match(await hidden.text(), /does not let you see payment methods: it needs project-payment-method:view-any/);
  });

  it("answers 503 when Stripe cannot be reached, keeping the pending connection for the next try", async () => {
    // A Stripe client pointed at a port nothing listens on (the twin's, once closed).
    const gone = await startStripeTwin();
    await gone.close();
    const unreachable = await startAuth({
      stripe: { client: createStripeClient({ secretKey: gone.secretKey, ...gone.clientOptions, timeoutMs: 2_000 }), webhookSecret: "whsec_unused" },
    });
    try {
      const creator = await createTestCreator({ label: "pay-unreachable" });
      const browser = await signedIn(creator, unreachable.url);
      const res = await browser.post(`/payments/projects/${creator.projectIds[0]}/stripe`, { currencies: "USD" }, "/payments");
      assert.equal(res.status, 503);
      assert.equal(res.headers.get("retry-after"), "30");
      assert.match(await res.text(), /Stripe did not answer as expected, so nothing is set up yet/);
      const { db } = await testDatabase();
      const kept = await db("payment_connections").where({ project_id: creator.projectIds[0] }).first("status", "account");
      assert.deepEqual(kept, { status: "pending", account: null });
    } finally {
      await unreachable.close();
    }
  });

  it("makes test methods on a sandbox deployment (SUBBRIDGE_ENVIRONMENT=test)", async () => {
    const sandbox = await startAuth({ stripe: api.deps.stripe!, environment: "test" });
    try {
      const creator = await createTestCreator({ label: "pay-sandbox" });
      const [projectId] = creator.projectIds as [string];
      await seedInstallation(creator.teamId, projectId);
      const browser = await signedIn(creator, sandbox.url);
      assert.equal(
        (await browser.post(`/payments/projects/${projectId}/stars`, {}, "/payments")).headers.get("location"),
        "/payments?done=stars-enabled",
      );
      const [stars] = await methodsOf(projectId);
      assert.deepEqual([stars?.provider, stars?.mode], ["telegram_stars", "test"]);
    } finally {
      await sandbox.close();
    }
  });

  it("without Stripe in this deployment: the page says so, offers no button, and the form is refused", async () => {
    const bare = await startAuth({ stripe: null });
    try {
      const creator = await createTestCreator({ label: "pay-nostripe" });
      const browser = await signedIn(creator, bare.url);
      const res = await browser.get("/payments");
      assert.match(res.headers.get("content-security-policy")!, /form-action 'self';/);
      const page = await res.text();
      assert.match(page, /This deployment takes no payments by Stripe/);
      assert.doesNotMatch(page, /Connect Stripe/);
      const refused = await browser.post(`/payments/projects/${creator.projectIds[0]}/stripe`, { currencies: "USD" }, "/payments");
      assert.equal(refused.status, 404);
      const { db } = await testDatabase();
      assert.equal(Number((await db("payment_connections").where({ project_id: creator.projectIds[0] }).count({ n: "*" }))[0]!.n), 0);
    } finally {
      await bare.close();
    }
  });
});
