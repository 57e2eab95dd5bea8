// payments.reconcile (issue 33): what the providers know and we do not is applied, so a webhook or
// update that never arrived (a process killed between the provider's confirmation and our commit,
// a delivery to a dead process, Telegram giving up) loses nothing. Every report goes through the
// same normalization and applyProviderEvents as a live one; the inbox makes a report applied
// before a no-op. Each run is bounded (pages and rows per step), every provider call has a timeout
// (the Stripe client's 20 s, the Telegram driver's), and one account that fails is logged and the
// others go on. The steps:
// - Stripe events: per connected account of an enabled Stripe method, the account's events since
//   its cursor (first run: the last 3 days; Stripe keeps 30), applied oldest first;
// - open Stripe checkouts older than a few minutes: the session read back (complete: applied as
//   its completion; expired: the checkout expires);
// - live provider-billed subscriptions past their ends_at: the provider's state read, an ended or
//   cancelled one applied, so a lost deletion never leaves access past the grace;
// - Telegram Stars: per active Telegram installation with a Stars method, the bot's ledger from
//   its cursor, a payment of one of our checkouts or a renewal of one of our subscriptions that the
//   inbox lacks applied under the update's own event id;
// - refunds owed to members retried (reconcile-refunds.ts).
import type { Logger } from "pino";
import pino from "pino";
import type Stripe from "stripe";
import { unscoped, type Db } from "../../db/tenant.ts";
import type { ScheduledJob, JobRun } from "../jobs/scheduled-job.ts";
import type { PaymentMethodRow } from "../payment-methods/tables.ts";
import type { SubscriptionRow } from "../subscriptions/tables.ts";
import { applyProviderEvents } from "./outcome.ts";
import type { ProviderEvent, ProviderName } from "./provider.ts";
import { providerRegistry } from "./providers.ts";
import { accountAccessLost, stripeAccessRefused } from "./connections.ts";
import { changes, cursorOf, PAGE, saveCursor, seen, unix, type Run } from "./reconcile-cursors.ts";
import { retryOwedRefunds } from "./reconcile-refunds.ts";
import { reconcileStarsInstallation, starsInstallations } from "./reconcile-stars.ts";
import { fromUnix } from "./stripe/payments.ts";
import { normalizeCompletedSession, normalizeStripeEvent } from "./stripe/webhook.ts";
import type { CheckoutRow } from "./tables.ts";

/** The bounds of one run. */
export const RECONCILE_LIMITS = {
  /** A first run reads this far back (Stripe keeps events 30 days). */
  firstLookbackMs: 3 * 24 * 3600_000,
  /** Pages of 100 events read per account and window; a window with more is halved (at most `halvings` times). */
  eventPages: 5,
  halvings: 10,
  /** A checkout this old whose completion did not arrive is read back. */
  checkoutAgeMs: 5 * 60_000,
  checkouts: 100,
  subscriptions: 50,
  refunds: 50,
};

/** Runs `step` for each item; a failure is logged with `what` and the item, and the others go on. */
async function eachIsolated<T>(run: Run, items: T[], what: string, label: (item: T) => Record<string, unknown>, step: (item: T) => Promise<number>) {
  let changed = 0;
  for (const item of items) {
    try {
      changed += await step(item);
    } catch (err) {
      run.logger.error({ ...label(item), err }, `reconciliation: ${what} failed; the next run retries`);
    }
  }
  return changed;
}

async function enabledMethods(db: Db, provider: ProviderName): Promise<PaymentMethodRow[]> {
  return (await unscoped(
    db,
    "reconciliation visits every team's enabled methods, each on its own team",
  )("payment_methods")
    .where({ provider, enabled: true })
    .orderBy("created_at")) as PaymentMethodRow[];
}

// --- Stripe events ------------------------------------------------------------------------------

/**
 * The account's events in [from, upper), oldest first; null when there are more than the page
 * bound. Stripe lists newest first, and applying newest first could store a deletion as "ignored"
 * before the completion it follows, so a window is read whole or made smaller.
 */
async function eventWindow(client: Stripe, account: string, from: Date, upper: number | null): Promise<Stripe.Event[] | null> {
  const events: Stripe.Event[] = [];
  let startingAfter: string | undefined;
  for (let page = 0; page < RECONCILE_LIMITS.eventPages; page++) {
    const list = await client.events.list(
      {
        created: { gte: unix(from), ...(upper !== null ? { lt: upper } : {}) },
        limit: PAGE,
        ...(startingAfter ? { starting_after: startingAfter } : {}),
      },
      { stripeAccount: account },
    );
    events.push(...list.data);
    if (!list.has_more) return events.reverse();
    startingAfter = list.data[list.data.length - 1]!.id;
  }
  return null;
}

async function reconcileStripeAccount(run: Run, client: Stripe, account: string): Promise<number> {
  const cursor = await cursorOf(run.db, "stripe", account);
  const from = cursor?.read_from ? new Date(cursor.read_from) : new Date(run.now.getTime() - RECONCILE_LIMITS.firstLookbackMs);
  let upper: number | null = null;
  let events = await eventWindow(client, account, from, upper);
  for (let i = 0; events === null && i < RECONCILE_LIMITS.halvings; i++) {
    upper = unix(from) + Math.max(1, Math.floor(((upper ?? unix(run.now) + 1) - unix(from)) / 2));
    events = await eventWindow(client, account, from, upper);
  }
  if (events === null) throw new Error(`more than ${RECONCILE_LIMITS.eventPages * PAGE} events in one second on ${account}`);
  let changed = 0;
  for (const event of events) {
    if (await seen(run.db, "stripe", event.id)) continue;
    changed += changes(await applyProviderEvents(run, await normalizeStripeEvent(client, event), run.now, { provider: "stripe", log: { account } }));
  }
  // The next window starts at the newest event read (the same second again: one created later in it is not missed), or at
  // the end of a halved window; an account with no events keeps its start.
  const newest = events.length ? events[events.length - 1]!.created : null;
  const next = upper !== null ? upper : newest;
  if (next !== null) await saveCursor(run.db, "stripe", account, run.now, { read_from: fromUnix(next) });
  else if (!cursor) await saveCursor(run.db, "stripe", account, run.now, { read_from: from });
  return changed;
}

/** The connected accounts of the enabled Stripe methods, each with its methods. */
async function stripeAccounts(run: Run): Promise<Map<string, PaymentMethodRow[]>> {
  const accounts = new Map<string, PaymentMethodRow[]>();
  for (const row of await enabledMethods(run.db, "stripe")) {
    const target = await run.registry.providerFor(row).catch((err: unknown) => {
      run.logger.error({ payment_method_id: row.id, err }, "reconciliation: the Stripe method's account could not be opened");
      return null;
    });
    if (target) accounts.set(target.method.account, [...(accounts.get(target.method.account) ?? []), row]);
  }
  return accounts;
}

/**
 * An account's events, or, when Stripe no longer lets SubBridge reach the account (the creator
 * disconnected it and the event was lost), its methods turned off and the creators told.
 */
async function reconcileOrEndStripeAccount(run: Run, client: Stripe, account: string, methods: PaymentMethodRow[]): Promise<number> {
  try {
    return await reconcileStripeAccount(run, client, account);
  } catch (err) {
    if (!accountAccessLost(err)) throw err;
    let ended = 0;
    for (const m of methods)
      if (await stripeAccessRefused(run.db, { teamId: m.team_id, projectId: m.project_id, methodId: m.id, account }, run.now)) ended++;
    return ended;
  }
}

// --- Stripe checkouts ---------------------------------------------------------------------------

async function reconcileStripeCheckout(run: Run, client: Stripe, checkout: CheckoutRow): Promise<number> {
  const method = (await unscoped(
    run.db,
    "the checkout's payment method, on its team",
  )("payment_methods")
    .where({ id: checkout.payment_method_id, team_id: checkout.team_id })
    .first()) as PaymentMethodRow | undefined;
  const target = method ? await run.registry.providerFor(method) : null;
  if (!target) throw new Error(`the checkout ${checkout.id} has no reachable Stripe payment method`);
  // The session lives on the account it was made on, even if the method has moved to another since.
  const account = checkout.provider_account ?? target.method.account;
  const session = await client.checkout.sessions.retrieve(checkout.provider_checkout_id!, {}, { stripeAccount: account });
  if (session.status === "complete") {
    // Named after the session, not an event: the real event arriving later finds the checkout completed and changes nothing.
    const events = await normalizeCompletedSession(client, account, session, `reconcile:${session.id}`, run.now);
    return changes(await applyProviderEvents(run, events, run.now, { provider: "stripe", log: { account, checkout_id: checkout.id } }));
  }
  if (session.status === "expired") {
    const expired = await unscoped(
      run.db,
      "the checkout is updated on its own team",
    )("payment_checkouts")
      .where({ id: checkout.id, team_id: checkout.team_id, status: "open" })
      .update({ status: "expired" });
    return Number(expired);
  }
  return 0;
}

// --- Provider-billed subscriptions past their end ------------------------------------------------

async function reconcileSubscription(run: Run, row: SubscriptionRow): Promise<number> {
  const method = row.payment_method_id
    ? ((await unscoped(
        run.db,
        "the subscription's payment method, on its team",
      )("payment_methods")
        .where({ id: row.payment_method_id, team_id: row.team_id })
        .first()) as PaymentMethodRow | undefined)
    : undefined;
  const target = method ? await run.registry.providerFor(method) : null;
  if (!target) throw new Error(`the subscription ${row.id} has no reachable ${row.provider} payment method`);
  const id = row.provider_subscription_id!;
  const state = await target.provider.readSubscription(target.method, id);
  const base = { occurredAt: run.now, source: target.method.account, providerSubscriptionId: id };
  // What the provider's lost report would have said, under an id of its own per subscription (applied at most once).
  const events: ProviderEvent[] =
    state.status === "ended"
      ? [{ ...base, kind: "subscription.ended", eventId: `reconcile:${id}:ended`, endedAt: run.now }]
      : state.cancelAtPeriodEnd
        ? [
            {
              ...base,
              kind: "subscription.cancel_scheduled",
              eventId: `reconcile:${id}:cancel`,
              cancelAtPeriodEnd: true,
              periodEndsAt: state.periodEndsAt,
            },
          ]
        : [];
  // A renewal the provider made is found with its payment in the event history or the Stars ledger; without one the
  // expiry job ends the subscription at the grace's end, as it would for a renewal that never came.
  return changes(await applyProviderEvents(run, events, run.now, { provider: row.provider as ProviderName, log: { subscription_id: row.id } }));
}

// --- The run --------------------------------------------------------------------------------------

export async function reconcilePayments(job: JobRun): Promise<{ changed: number }> {
  const logger: Logger = job.logger ?? pino({ level: "silent" });
  if (!job.platformAccess) {
    logger.warn("reconciliation needs the platforms and the app key to open payment methods; nothing was read");
    return { changed: 0 };
  }
  const stripe = job.stripe?.client ?? null;
  const run: Run = {
    db: job.db,
    now: job.now,
    logger,
    ...job.platformAccess,
    connectors: job.platformAccess,
    stripe,
    registry: providerRegistry({ db: job.db, stripe, connectors: job.platformAccess }),
  };
  let changed = 0;
  if (stripe) {
    changed += await eachIsolated(
      run,
      [...(await stripeAccounts(run))],
      "reading a Stripe account's events",
      ([account]) => ({ account }),
      ([account, methods]) => reconcileOrEndStripeAccount(run, stripe, account, methods),
    );
    const checkouts = (await unscoped(
      run.db,
      "open Stripe checkouts of every team, each read on its own account",
    )("payment_checkouts")
      .where({ provider: "stripe", status: "open" })
      .whereNotNull("provider_checkout_id")
      .whereNotNull("payment_method_id")
      .where("created_at", "<=", new Date(run.now.getTime() - RECONCILE_LIMITS.checkoutAgeMs))
      .orderBy("created_at")
      .limit(RECONCILE_LIMITS.checkouts)) as CheckoutRow[];
    changed += await eachIsolated(
      run,
      checkouts,
      "reading a Stripe checkout",
      (c) => ({ checkout_id: c.id }),
      (c) => reconcileStripeCheckout(run, stripe, c),
    );
  }
  const overdue = (await unscoped(
    run.db,
    "provider-billed subscriptions of every team past their end",
  )("subscriptions")
    .whereIn("status", ["trialing", "active", "past_due"])
    .whereNotNull("provider_subscription_id")
    .whereIn("provider", stripe ? ["stripe", "telegram_stars"] : ["telegram_stars"])
    .where("ends_at", "<", run.now)
    .orderBy("ends_at")
    .limit(RECONCILE_LIMITS.subscriptions)) as SubscriptionRow[];
  changed += await eachIsolated(
    run,
    overdue,
    "reading a subscription at its provider",
    (s) => ({ subscription_id: s.id }),
    (s) => reconcileSubscription(run, s),
  );
  changed += await eachIsolated(
    run,
    await starsInstallations(run.db),
    "reading a bot's Stars ledger",
    (i) => ({ installation_id: i.id }),
    (i) => reconcileStarsInstallation(run, i),
  );
  changed += await retryOwedRefunds(run, run.now, RECONCILE_LIMITS.refunds);
  return { changed };
}

export const reconcileJob: ScheduledJob = {
  name: "payments.reconcile",
  cron: "*/5 * * * *",
  description:
    "What the payment providers know and we missed (a lost webhook or update, a crash before our commit) is applied once; refunds owed to members are retried.",
  run: reconcilePayments,
};
