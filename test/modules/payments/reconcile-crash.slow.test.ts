// A process killed between Stripe's confirmation of a payment and our commit loses nothing (issue
// 33): `npm start` runs against a Stripe-compatible server (the twin, in this test's process, so it
// outlives the service) whose Connect endpoint is the service's route. The service is frozen
// (SIGSTOP), the member pays, Stripe's webhook reaches the frozen process's socket and is never
// answered, and the process is killed (SIGKILL): Stripe has the money, the service has nothing. A
// fresh process, `npm run cli -- jobs:run payments.reconcile`, applies the payment: the
// subscription, its transaction and the plan's grant exist, exactly once, and a second run changes
// nothing. CI runs it on PostgreSQL only (untagged): the embedded database surviving a killed server
// is test/cli/embedded-sharing.slow.test.ts's subject.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import type { ChildProcess } from "node:child_process";
import { openConfiguredDatabase, type OpenedDatabase } from "../../../src/db/database.ts";
import { createDomainContext, type Actor } from "../../../src/db/tenant.ts";
import { findOrCreateMember } from "../../../src/modules/members/members.ts";
import { createPaymentMethod } from "../../../src/modules/payment-methods/payment-methods.ts";
import { noteProviderCheckout, openCheckout } from "../../../src/modules/payments/checkouts.ts";
import { sealStripeCredentials } from "../../../src/modules/payments/providers.ts";
import { startStripeTwin, TEST_CARDS, type StripeTwin } from "../../../src/simulators/stripe/index.ts";
import { createStripeClient } from "../../../src/modules/payments/stripe/client.ts";
import { createConnectedAccount, stripeProvider } from "../../../src/modules/payments/stripe/index.ts";
import { plansTable, type PlanRow } from "../../../src/modules/plans/tables.ts";
import { createProject } from "../../../src/modules/projects/projects.ts";
import { createCreatorAccount } from "../../../src/operator.ts";
import { emptyPostgresDatabase, usingPostgres } from "../../helpers/backends.ts";
import { freePort, runNpm, startNpm, tempDir, type StartedProcess } from "../../helpers/processes.ts";

/** Signals the process group `npm start` runs in (npm, tsx and the service). */
const signalGroup = (child: ChildProcess, signal: NodeJS.Signals) => process.kill(-child.pid!, signal);

describe("payments.reconcile after a process killed before its commit", function () {
  this.timeout(300_000);
  let twin: StripeTwin;
  let postgres: { url: string; drop(): Promise<void> } | null = null;
  let server: StartedProcess | null = null;
  after(async () => {
    await server?.stop();
    await twin?.close();
    await postgres?.drop();
  });

  it(`a payment Stripe confirmed while the service died is applied once by a fresh process`, async () => {
    const appKey = randomBytes(32);
    twin = await startStripeTwin({ secretKey: `sk_test_${randomBytes(16).toString("hex")}` });
    const stripe = createStripeClient({ secretKey: twin.secretKey, ...twin.clientOptions });
    const apiPort = await freePort();
    const baseUrl = `http://127.0.0.1:${apiPort}`;
    const endpoint = await stripe.webhookEndpoints.create({ url: `${baseUrl}/payments/stripe/events`, enabled_events: ["*"], connect: true });
    postgres = usingPostgres ? await emptyPostgresDatabase("crash") : null;
    const dataDir = tempDir("reconcile-crash");
    const env = {
      DATA_DIR: dataDir,
      DATABASE_URL: postgres?.url ?? "",
      LOG_LEVEL: "warn",
      HOST: "127.0.0.1",
      SURFACES: "api",
      WORKER: "off",
      API_PORT: String(apiPort),
      BASE_URL: baseUrl,
      APP_KEY: appKey.toString("hex"),
      STRIPE_SECRET_KEY: twin.secretKey,
      STRIPE_WEBHOOK_SECRET: endpoint.secret!,
      STRIPE_API_URL: twin.url,
      // The twin's key is a test-mode key, which production (live, the default on PostgreSQL) refuses.
      SUBBRIDGE_ENVIRONMENT: "test",
    };
    const openDb = () => openConfiguredDatabase({ url: postgres?.url ?? null, dataDir, mode: "share" });
    server = await startNpm(env, /Payments\s+Stripe-compatible server at/);

    // A creator's project selling a plan with one perk through their connected account; a member's open checkout.
    const account = await createConnectedAccount(stripe, { email: "creator@example.com", country: "US" });
    await twin.completeOnboarding(account);
    let database: OpenedDatabase = await openDb();
    const seeded = await (async () => {
      const { db } = database;
      const now = new Date();
      const creator = await createCreatorAccount(db, { email: `crash-${randomUUID()}@example.com`, password: "longenough", tier: "growth" }, now);
      const actor: Actor = {
        userId: creator.user_id,
        teamId: creator.team_id,
        projectIds: null,
        kind: "system",
        credentialKind: null,
        requestId: null,
      };
      const inTeam = <T>(work: (ctx: ReturnType<typeof createDomainContext>) => Promise<T>) =>
        db.transaction((trx) => work(createDomainContext(trx, actor, new Date())));
      const project = await inTeam((ctx) => createProject(ctx, { name: "Crash" }));
      const team = { team_id: creator.team_id, project_id: project.id };
      const installationId = randomUUID();
      await db("connector_installations").insert({
        id: installationId,
        ...team,
        connector_key: "telegram",
        status: "active",
        platform_account_id: "424242",
        platform_account_name: "crash_bot",
        bot_url: "https://t.me/crash_bot",
        settings: JSON.stringify({}),
        created_at: now,
        updated_at: now,
      });
      const planId = randomUUID();
      await db("plans").insert({
        id: planId,
        ...team,
        name: "Monthly",
        amount_minor: 500,
        currency: "USD",
        billing_cycle: "month",
        billing_cycle_count: 1,
        trial_days: 0,
        status: "published",
        published_at: now,
        created_at: now,
        updated_at: now,
      });
      const resourceId = randomUUID();
      await db("resources").insert({
        id: resourceId,
        ...team,
        installation_id: installationId,
        connector_key: "telegram",
        kind: "telegram-manual",
        grant_mode: "creator_task",
        title: "Signed print",
        created_at: now,
        updated_at: now,
      });
      await db("plan_resources").insert({ plan_id: planId, resource_id: resourceId, ...team, position: 0 });
      const method = await inTeam((ctx) =>
        createPaymentMethod(ctx, project.id, {
          provider: "stripe",
          mode: "test",
          currencies: ["USD"],
          billing_cycles: ["month"],
          sealedCredentials: sealStripeCredentials(appKey, project.id, { account }),
        }),
      );
      const { checkout, plan } = await inTeam(async (ctx) => {
        const { member } = await findOrCreateMember(ctx, project.id, { connectorKey: "telegram", externalUserId: "777001", displayName: "Crash" });
        const plan = (await plansTable.rows(ctx).where({ id: planId }).first()) as PlanRow;
        const { checkout } = await openCheckout(ctx, { member, plan, provider: "stripe", paymentMethodId: method.id, providerAccount: account });
        return { checkout, plan };
      });
      const price = { amountMinor: 500, currency: "USD", cycle: plan.billing_cycle, cycleCount: 1, trialDays: 0 };
      const connected = { paymentMethodId: method.id, account, mode: "test" as const };
      const start = await stripeProvider(stripe).startCheckout(connected, {
        reference: checkout.id,
        planName: plan.name,
        price,
        successUrl: `${baseUrl}/paid`,
      });
      await inTeam((ctx) => noteProviderCheckout(ctx, checkout.id, start.providerCheckoutId!));
      return { checkoutId: checkout.id, sessionId: start.providerCheckoutId!, resourceId };
    })();
    // The embedded database is served by the process about to die: this connection goes first.
    await database.close();

    // Frozen, the service takes Stripe's connection and never answers; killed, it never commits.
    // The payment is complete at Stripe once completeCheckout is called; its deliveries are not
    // awaited before the kill, since each would wait out the twin's 10 s timeout on the frozen socket.
    signalGroup(server.child, "SIGSTOP");
    const completed = twin.completeCheckout(seeded.sessionId, { card: TEST_CARDS.success });
    const died = new Promise((resolve) => server!.child.once("close", resolve));
    await new Promise((resolve) => setTimeout(resolve, 500));
    signalGroup(server.child, "SIGKILL");
    await died;
    server = null;
    await completed;
    const delivery = twin.deliveries.find((d) => d.type === "checkout.session.completed" && d.url.startsWith(baseUrl));
    assert.ok(delivery, JSON.stringify(twin.deliveries));
    assert.equal(delivery.status, null, `Stripe's delivery got no answer: ${JSON.stringify(delivery)}`);
    const session = await stripe.checkout.sessions.retrieve(seeded.sessionId, {}, { stripeAccount: account });
    assert.deepEqual([session.status, session.payment_status], ["complete", "paid"], "Stripe has the money");

    const counts = async () => {
      database = await openDb();
      try {
        const { db } = database;
        const checkout = await db("payment_checkouts").where({ id: seeded.checkoutId }).first();
        const subscriptions = await db("subscriptions").where({ member_id: checkout.member_id });
        const n = async (table: string) =>
          Number(
            (
              await db(table)
                .whereIn(
                  "subscription_id",
                  subscriptions.map((s) => s.id),
                )
                .count({ n: "*" })
            )[0]!.n,
          );
        return {
          checkout: checkout.status as string,
          subscriptions: subscriptions.map((s) => [s.status, s.provider_subscription_id?.slice(0, 4)]),
          payments: await n("transactions"),
          grants: await n("access_grants"),
        };
      } finally {
        await database.close();
      }
    };
    assert.deepEqual(await counts(), { checkout: "open", subscriptions: [], payments: 0, grants: 0 }, "nothing was committed");

    const reconciled = await runNpm("cli", ["jobs:run", "payments.reconcile"], env);
    assert.equal(reconciled.code, 0, reconciled.stderr);
    assert.ok((JSON.parse(reconciled.stdout) as { changed: number }).changed >= 1, reconciled.stdout);
    const once = await counts();
    assert.deepEqual(once, { checkout: "completed", subscriptions: [["active", "sub_"]], payments: 1, grants: 1 });

    const again = await runNpm("cli", ["jobs:run", "payments.reconcile"], env);
    assert.equal(again.code, 0, again.stderr);
    assert.equal((JSON.parse(again.stdout) as { changed: number }).changed, 0, again.stdout);
    assert.deepEqual(await counts(), once);
  });
});
