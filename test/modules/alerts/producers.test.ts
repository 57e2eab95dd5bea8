// Every creator alert class has a real producer (issue 34 item 3): the cause happens as the product
// makes it happen, and its alert is routed by the one routing function to the creator's linked
// Telegram account (a bot message through the bot they linked it through) and, for the critical
// classes or when routed there, to email. A class routed away from the account is never sent there.
import assert from "node:assert/strict";
import { randomInt, randomUUID } from "node:crypto";
import { regenerateRecoveryCodes } from "../../../src/modules/account/recovery-codes.ts";
import type { AlertClass } from "../../../src/modules/account/alert-routing.ts";
import { billingEventsUrl, setUpSimulatedBilling } from "../../../src/modules/billing/stripe-setup.ts";
import type { InstallationRow } from "../../../src/modules/connectors/tables.ts";
import { findOrCreateMember } from "../../../src/modules/members/members.ts";
import { applyProviderEvent } from "../../../src/modules/payments/apply.ts";
import { noteProviderCheckout, openCheckout } from "../../../src/modules/payments/checkouts.ts";
import type { StripePayments } from "../../../src/modules/payments/stripe/stripe-payments.ts";
import { startStripeTwin, type StripeTwin } from "../../../src/simulators/stripe/index.ts";
import { plansTable, type PlanRow } from "../../../src/modules/plans/tables.ts";
import { grantableAbilities } from "../../../src/modules/tokens/abilities.ts";
import { startAuth } from "../../helpers/auth.ts";
import { testDatabase, testKv } from "../../helpers/backends.ts";
import { testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { createTestCreator, joinTeamWithToken, TEST_PASSWORD, type TestCreator } from "../../helpers/fixtures.ts";
import { FormBrowser } from "../../helpers/form-browser.ts";
import { ApiClient } from "../../helpers/http.ts";
import { repositoryConnectorRegistry, TEST_APP_KEY, testLogger, type StartOptions } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { sendDueBotMessages } from "../../../src/workers/bot-messages/worker.ts";
import { put } from "../account/support.ts";
import { installationRow, installTelegram, postTelegramMessage } from "../connectors/support.ts";
import { account as memberAccount, asDomain, DAY, seedPlan } from "../subscriptions/commerce.ts";
import { linkThrough } from "./support.ts";

const CRITICAL: readonly AlertClass[] = ["recovery", "billing", "security"];

interface Delivered {
  alert: { id: string; class: string; title: string; body: string; sent_to_accounts: unknown; sent_to_email: boolean };
  message: { installation_id: string; recipient: string; purpose: string; status: string; text: string } | undefined;
  mail: { subject: string; body: string } | undefined;
}

/** The creator's newest alert of `alertClass` (optionally whose title matches), with its bot message and mail. */
async function delivered(creator: Pick<TestCreator, "userId" | "email">, alertClass: AlertClass, title?: RegExp): Promise<Delivered> {
  const { db } = await testDatabase();
  const rows = await db("creator_alerts").where({ user_id: creator.userId, class: alertClass }).orderBy("created_at");
  const alert = rows.filter((r: { title: string }) => !title || title.test(r.title)).at(-1);
  assert.ok(alert, `a ${alertClass} alert${title ? ` titled ${title}` : ""} was raised`);
  const message = await db("bot_messages").where({ subject_type: "creator_alert", subject_id: alert.id }).first();
  const mail = await db("mail_outbox")
    .where({ to_address: creator.email, subject: `SubBridge: ${alert.title}` })
    .first();
  return { alert, message, mail };
}

/** Asserts the alert reached `account` through `installation`'s bot, and email exactly when the class is critical. */
function assertRouted(got: Delivered, account: string, installation: InstallationRow) {
  const critical = CRITICAL.includes(got.alert.class as AlertClass);
  assert.deepEqual(got.alert.sent_to_accounts, [{ connector: "telegram", account_id: account }]);
  assert.equal(got.alert.sent_to_email, critical, "email only for a critical class");
  assert.ok(got.message, "a bot message is queued");
  assert.deepEqual(
    [got.message.installation_id, got.message.recipient, got.message.purpose, got.message.status, got.message.text],
    [installation.id, account, "alert", "queued", `${got.alert.title}\n\n${got.alert.body}`],
  );
  assert.equal(got.mail !== undefined, critical, "a mail exactly when email is routed");
  if (got.mail) assert.equal(got.mail.body, got.alert.body);
}

/** Posts a private message from a member to the installation's bot, as Telegram delivers it. */
async function memberWrites(apiUrl: string, installation: InstallationRow, text: string, userId = randomInt(1_000_000, 9_999_999)) {
  const res = await postTelegramMessage(apiUrl, installation.id, userId, text, { firstName: "Grace", lastName: "Member" });
  assert.equal(res.status, 200);
}

describe("alert producers", function () {
  this.timeout(90_000);
  const suite = useApiWithCreator({ creator: { tier: "growth", label: "producers" } });
  let installation: InstallationRow;
  let account: string;
  let bot: { id: number };

  before(async () => {
    const project = suite.creator.projectIds[0]!;
    ({ bot } = await installTelegram(suite.client, project));
    installation = await installationRow(project);
    account = await linkThrough(suite.creator, installation);
  });

  it("sales: a paid checkout and a renewal each raise one alert; passes: the plan's creator task too", async () => {
    const { db } = await testDatabase();
    const plan = await seedPlan(suite.creator, { resources: [{ mode: "creator_task", title: "Signed print" }] });
    const { checkout } = await asDomain(
      suite.creator,
      async (ctx) => {
        const { member } = await findOrCreateMember(ctx, plan.projectId, memberAccount("Lin Buyer"));
        const planRow = (await plansTable.rows(ctx).where({ id: plan.planId }).first()) as PlanRow;
        const { checkout } = await openCheckout(ctx, {
          member,
          plan: planRow,
          provider: "stripe",
          paymentMethodId: null,
          providerAccount: "acct_alerts",
        });
        await noteProviderCheckout(ctx, checkout.id, "cs_alerts");
        return { checkout };
      },
      { system: true },
    );
    const subscription = `sub_${randomUUID()}`;
    const payment = () => ({ providerPaymentId: `pi_${randomUUID()}`, amountMinor: 500, currency: "USD", feeMinor: null, paidAt: new Date() });
    const paid = await applyProviderEvent(
      db,
      "stripe",
      {
        kind: "checkout.completed",
        eventId: `evt_${randomUUID()}`,
        occurredAt: new Date(),
        source: "acct_alerts",
        reference: checkout.id,
        providerCheckoutId: "cs_alerts",
        providerSubscriptionId: subscription,
        providerCustomerId: "cus_1",
        payment: payment(),
        trialEndsAt: null,
        periodEndsAt: new Date(Date.now() + 30 * DAY),
      },
      new Date(),
    );
    assert.equal(paid.outcome, "applied");
    const sale = await delivered(suite.creator, "sales", /^New sale/);
    assertRouted(sale, account, installation);
    assert.match(sale.alert.title, /Lin Buyer subscribed to Plan \w+ \(5\.00 USD\)/);
    assert.ok(sale.alert.body.includes(`/payments/projects/${plan.projectId}/payments`), "links the project's payments page");

    const task = await delivered(suite.creator, "passes", /task/);
    assertRouted(task, account, installation);
    assert.match(task.alert.body, /Hand "Signed print" over to Lin Buyer/);

    const renewed = await applyProviderEvent(
      db,
      "stripe",
      {
        kind: "subscription.renewed",
        eventId: `evt_${randomUUID()}`,
        occurredAt: new Date(),
        source: "acct_alerts",
        providerSubscriptionId: subscription,
        payment: payment(),
        periodEndsAt: new Date(Date.now() + 60 * DAY),
      },
      new Date(),
    );
    assert.equal(renewed.outcome, "applied");
    assertRouted(await delivered(suite.creator, "sales", /^Renewal: Lin Buyer/), account, installation);
    assert.equal((await db("creator_alerts").where({ user_id: suite.creator.userId, class: "sales" })).length, 2, "one alert per payment");
  });

  it("support: a member's message raises an alert with their name, their words and the reply operation's address", async () => {
    await memberWrites(suite.api.url, installation, "Where is   my invite?\nI paid an hour ago.");
    const got = await delivered(suite.creator, "support", /opened a conversation/);
    assertRouted(got, account, installation);
    assert.equal(got.alert.title, "Support: Grace Member opened a conversation");
    assert.ok(got.alert.body.includes(`"Where is my invite? I paid an hour ago."`), got.alert.body);
    // The address it names is the reply operation's.
    const reply = /POST http\S+?(\/v1\/projects\/\S+\/messages)$/m.exec(got.alert.body);
    assert.ok(reply, got.alert.body);
    const replied = await suite.client.post(reply[1]!, { body: "On its way." });
    assert.equal(replied.status, 201, JSON.stringify(replied.body));
  });

  it("passes: a pass window opened for sale", async () => {
    const plan = await seedPlan(suite.creator);
    const res = await suite.client.post(`/v1/projects/${plan.projectId}/plans/${plan.planId}/pass-windows`, {
      name: "Summer camp",
      starts_at: new Date(Date.now() + 10 * DAY).toISOString(),
      ends_at: new Date(Date.now() + 12 * DAY).toISOString(),
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const got = await delivered(suite.creator, "passes", /Summer camp/);
    assertRouted(got, account, installation);
    assert.ok(got.alert.body.includes(res.body.data.starts_at), "names the window's start");
  });

  it("security: a token minted through the API, and a second factor changed", async () => {
    const res = await suite.client.post("/v1/tokens", { name: "reporting script", abilities: ["team:view"] });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const minted = await delivered(suite.creator, "security", /reporting script/);
    assertRouted(minted, account, installation);
    assert.ok(minted.alert.body.includes("/tokens"), "links the tokens page");

    const { db } = await testDatabase();
    const owner = { db, userId: suite.creator.userId, teamId: suite.creator.teamId, requestId: null, appKey: TEST_APP_KEY, now: new Date() };
    await regenerateRecoveryCodes(owner);
    assertRouted(await delivered(suite.creator, "security", /Recovery codes replaced/), account, installation);
  });

  it("onboarding: a team's first project and first connector, to its admins through their own bot", async () => {
    // Another creator's team, fresh, where the suite's creator is an admin and acts with a token of it.
    const owner = await createTestCreator({ tier: "growth", projects: 0, label: "new-team" });
    const admin = new ApiClient(suite.api.url, (await joinTeamWithToken(owner, suite.creator, [...grantableAbilities])).token);
    const project = await admin.post("/v1/projects", { name: "First steps" });
    assert.equal(project.status, 201, JSON.stringify(project.body));
    const first = await delivered(suite.creator, "onboarding", /first project, First steps/);
    assertRouted(first, account, installation);
    assert.ok(first.alert.body.includes(`/${project.body.data.handle}`), "links the portal");
    const ownerGot = await delivered(owner, "onboarding", /first project/);
    assert.equal(ownerGot.alert.sent_to_email, true, "the owner has no linked account: email");

    await installTelegram(admin, project.body.data.id);
    assertRouted(await delivered(suite.creator, "onboarding", /first connector/), account, installation);
    const second = await admin.post("/v1/projects", { name: "Second steps" });
    assert.equal(second.status, 201);
    const { db } = await testDatabase();
    assert.equal((await db("creator_alerts").where({ user_id: owner.userId, class: "onboarding" })).length, 2, "only the firsts");
  });

  it("raises no onboarding or token alert for what the system does (the operator's CLI, fixtures)", async () => {
    const { db } = await testDatabase();
    // createTestCreator makes the project and mints the token as the operator's CLI does.
    const creator = await createTestCreator({ projects: 1, label: "operator-made" });
    assert.deepEqual(await db("creator_alerts").where({ user_id: creator.userId }), []);
    assert.deepEqual(await db("mail_outbox").where({ to_address: creator.email }), []);
  });

  it("never sends a class routed away from the account there: email takes it", async () => {
    const { db } = await testDatabase();
    const res = await put(suite.client, { destinations: [{ kind: "connector_identity", target: account, classes: ["sales"] }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await memberWrites(suite.api.url, installation, "Routed elsewhere?");
    const got = await delivered(suite.creator, "support", /opened a conversation/);
    assert.ok(got.alert.body.includes("Routed elsewhere?"));
    assert.deepEqual([got.alert.sent_to_accounts, got.alert.sent_to_email], [[], true]);
    assert.equal(got.message, undefined, "no bot message");
    assert.ok(got.mail, "the mail takes it");
    assert.equal((await db("bot_messages").where({ subject_id: got.alert.id })).length, 0);
  });

  it("the bot message worker sends the queued alerts to the account through its bot, within the pacing", async () => {
    const { db } = await testDatabase();
    // In the order they were queued (seq), which is the order the worker sends them in: alerts raised
    // by one change share their created_at.
    const queued = await db("bot_messages").where({ installation_id: installation.id, recipient: account, purpose: "alert" }).orderBy("seq");
    assert.ok(queued.length >= 8, "every class's alerts above");
    const mark = (await testPlatform()).calls.length;
    const env = { connectors: repositoryConnectorRegistry(), platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY };
    // One message a second to one recipient (the manifest's pacing): the clock moves on until all are out.
    for (let i = 0, now = Date.now(); i < queued.length + 2; i++, now += 1100)
      await sendDueBotMessages({ db, kv: await testKv(), env, logger: testLogger, now: new Date(now), installations: [installation.id] });
    const sent = (await testPlatform()).calls
      .slice(mark)
      .filter((c) => c.name === "sendMessage" && c.bot === String(bot.id) && c.params.chat_id === account);
    assert.deepEqual(
      sent.map((c) => [c.params.chat_id, c.params.text]),
      queued.map((m: { text: string }) => [account, m.text]),
    );
    assert.deepEqual(
      (
        await db("bot_messages").whereIn(
          "id",
          queued.map((m: { id: string }) => m.id),
        )
      ).map((m: { status: string }) => m.status),
      queued.map(() => "sent"),
    );
  });
});

describe("alert producers: the creator's own plan and sign-in", function () {
  this.timeout(90_000);
  let twin: StripeTwin;
  const apiOptions: StartOptions = {};
  before(async () => {
    twin = await startStripeTwin();
    apiOptions.stripeTwin = twin;
  });
  const suite = useApiWithCreator({ api: apiOptions, creator: { tier: "free", label: "billing-alerts" } });
  let auth: Awaited<ReturnType<typeof startAuth>>;
  const stripe = () => suite.api.deps.stripe as StripePayments;
  let installation: InstallationRow;
  let account: string;
  before(async () => {
    stripe().billing = await setUpSimulatedBilling(stripe().client, suite.api.url);
    auth = await startAuth({ stripe: stripe() });
    await installTelegram(suite.client, suite.creator.projectIds[0]!);
    installation = await installationRow(suite.creator.projectIds[0]!);
    account = await linkThrough(suite.creator, installation);
  });
  after(async () => {
    await auth?.close();
    await twin?.close();
  });

  it("security: a sign-in; billing: the plan's failed renewal and its cancellation", async () => {
    const browser = new FormBrowser(auth.url);
    const signIn = await browser.post("/sign-in", { email: suite.creator.email, password: TEST_PASSWORD, return_to: "/" }, "/sign-in");
    assert.equal(signIn.status, 302);
    const signedIn = await delivered(suite.creator, "security", /New sign-in/);
    assertRouted(signedIn, account, installation);
    assert.ok(signedIn.alert.body.includes("/security"), "links the security page");
    // The same browser again is no news; another browser is.
    const signIns = async () =>
      (await (await testDatabase()).db("creator_alerts").where({ user_id: suite.creator.userId, title: "New sign-in to your account" })).length;
    const before = await signIns();
    assert.equal((await browser.post("/sign-out", {}, "/")).status, 302);
    const again = await browser.post("/sign-in", { email: suite.creator.email, password: TEST_PASSWORD, return_to: "/" }, "/sign-in");
    assert.equal(again.status, 302);
    assert.equal(await signIns(), before, "a browser that signed in before raises nothing");
    const elsewhere = await new FormBrowser(auth.url).post(
      "/sign-in",
      { email: suite.creator.email, password: TEST_PASSWORD, return_to: "/" },
      "/sign-in",
    );
    assert.equal(elsewhere.status, 302);
    assert.equal(await signIns(), before + 1, "a new browser raises the alert");

    const checkout = await browser.post("/billing/checkout", { team_id: suite.creator.teamId, tier: "starter" }, "/billing");
    assert.equal(checkout.status, 303, await checkout.text());
    await twin.completeCheckout(new URL(checkout.headers.get("location")!).pathname.split("/").at(-1)!);
    await twin.settled();
    const { db } = await testDatabase();
    const subscription = (await db("creator_billing").where({ user_id: suite.creator.userId }).first()).stripe_subscription_id as string;
    twin.failNextPayment(subscription);
    await twin.advanceClock(32 * 86400);
    await twin.settled();
    const failed = await delivered(suite.creator, "billing", /payment for your Starter plan failed/);
    assertRouted(failed, account, installation);
    assert.ok(failed.alert.body.includes("/billing"), "links the billing page");

    await twin.advanceClock(3 * 86400); // Stripe's retry pays
    await twin.settled();
    const cancelled = await browser.post("/billing/cancel", { team_id: suite.creator.teamId }, "/billing");
    assert.equal(cancelled.status, 302);
    await twin.settled();
    assertRouted(await delivered(suite.creator, "billing", /Starter plan is cancelled/), account, installation);
    assert.ok(
      twin.deliveries.some((d) => d.url === billingEventsUrl(suite.api.url)),
      "through Stripe's events",
    );
  });
});
