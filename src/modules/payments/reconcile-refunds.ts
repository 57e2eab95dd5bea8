// Making the refunds owed (reconcile-owed.ts): through the provider of the payment method that
// received the money (the superseded checkout's, or the account a mismatched report came through),
// and a mismatched report's provider subscription cancelled so it charges nothing more. A provider's "already refunded" counts as done (an
// earlier attempt whose answer was lost); any other failure is logged at error level and retried
// later with a growing delay (1 min, 2, 4 … at most 6 hours), so a provider that is down for a day
// is asked a handful of times, not every run. The operator lists what is still owed with
// `npm run cli -- payments:refunds-owed`.
import type { Logger } from "pino";
import Stripe from "stripe";
import { createDomainContext, systemActor, unscoped, type Db } from "../../db/tenant.ts";
import type { AccessSyncEnvironment } from "../connectors/access-sync.ts";
import { installationSession } from "../connectors/bot/session.ts";
import type { InstallationRow } from "../connectors/tables.ts";
import type { PaymentMethodRow } from "../payment-methods/tables.ts";
import type { ProviderRegistry } from "./providers.ts";
import type { OwedRefundRow } from "./reconcile-owed.ts";
import { owedRefundsTable } from "./tables.ts";
import { parseStarsPaymentId } from "./stars/ids.ts";

const FIRST_RETRY_MS = 60_000;
const LONGEST_RETRY_MS = 6 * 3600_000;

/** When the refund is asked for again after its `attempts`-th failure. */
export const owedRefundRetryAt = (now: Date, attempts: number) =>
  new Date(now.getTime() + Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1)));

/** Stripe's answer for a charge whose whole amount is refunded already. */
export const alreadyRefunded = (err: unknown) => err instanceof Stripe.errors.StripeInvalidRequestError && err.code === "charge_already_refunded";

/** Reaches the member's chat (Stars) after their refund. */
export interface RefundDeps extends AccessSyncEnvironment {
  db: Db;
  registry: ProviderRegistry;
  logger: Logger;
}

/** What the payer reads in the bot's chat when their stars come back. */
const REFUND_TEXT: Record<OwedRefundRow["reason"], string> = {
  superseded: "You already have a live subscription in this community, so this payment was refunded.",
  mismatched: "This payment did not match the invoice it named, so it was refunded and gave no access.",
};

/** A Stars payer is told in the bot's chat why their stars came back (Stripe's refund shows on the card statement). */
async function tellMember(deps: RefundDeps, row: OwedRefundRow): Promise<void> {
  if (row.provider !== "telegram_stars" || row.provider_payment_id === null) return;
  const installation = (await unscoped(
    deps.db,
    "the refund's project names its Telegram installation",
  )("connector_installations")
    .where({ project_id: row.project_id, team_id: row.team_id, connector_key: "telegram", status: "active" })
    .first()) as InstallationRow | undefined;
  if (!installation) return;
  const { userId } = parseStarsPaymentId(row.provider_payment_id);
  await installationSession(deps, installation).sendMessage(userId, REFUND_TEXT[row.reason]);
}

/** Asks the provider to refund `row` once; records the answer. True when the refund is made (or was already). */
export async function settleOwedRefund(deps: RefundDeps, row: OwedRefundRow, now: Date): Promise<boolean> {
  let failure: unknown = null;
  try {
    const method = row.payment_method_id
      ? ((await unscoped(
          deps.db,
          "the owed refund's payment method, on the refund's team",
        )("payment_methods")
          .where({ id: row.payment_method_id, team_id: row.team_id })
          .first()) as PaymentMethodRow | undefined)
      : undefined;
    const target = method ? await deps.registry.providerFor(method) : null;
    if (!target) throw new Error(`the owed refund ${row.id} has no reachable ${row.provider} payment method to refund through`);
    if (row.provider_payment_id !== null)
      try {
        await target.provider.refund(target.method, row.provider_payment_id);
      } catch (err) {
        if (!alreadyRefunded(err)) throw err;
      }
    if (row.provider_subscription_id !== null) await target.provider.cancelAtPeriodEnd(target.method, row.provider_subscription_id);
  } catch (err) {
    failure = err;
  }
  const ctx = createDomainContext(deps.db, systemActor(row.team_id), now);
  const log = {
    owed_refund_id: row.id,
    reason: row.reason,
    checkout_id: row.checkout_id,
    event_id: row.event_id,
    provider: row.provider,
    payment_id: row.provider_payment_id,
  };
  if (failure === null) {
    await owedRefundsTable
      .rows(ctx)
      .where({ id: row.id })
      .update({ status: "refunded", refunded_at: now, attempts: row.attempts + 1, last_error: null });
    deps.logger.info(log, "owed refund made");
    await tellMember(deps, row).catch((err: unknown) => deps.logger.warn({ ...log, err }, "telling the member of their refund failed"));
    return true;
  }
  const attempts = row.attempts + 1;
  const next = owedRefundRetryAt(now, attempts);
  const message = failure instanceof Error ? failure.message : String(failure);
  await owedRefundsTable
    .rows(ctx)
    .where({ id: row.id })
    .update({ attempts, next_attempt_at: next, last_error: message.slice(0, 1000) });
  // The money is owed to the member until a retry succeeds: an operator sees it here and in payments:refunds-owed.
  deps.logger.error({ ...log, attempts, next_attempt_at: next.toISOString(), err: failure }, "refund owed to a member failed; it is retried");
  return false;
}

/** The owed refund recorded for the provider's payment `providerPaymentId`, or with `id`, if it is still owed. */
export async function owedRefundFor(
  db: Db,
  which: { provider: string; providerPaymentId: string } | { id: string },
): Promise<OwedRefundRow | undefined> {
  const where = "id" in which ? { id: which.id } : { provider: which.provider, provider_payment_id: which.providerPaymentId };
  return (await unscoped(
    db,
    "an owed refund is found by its id or the provider's payment id",
  )("payment_refunds_owed")
    .where({ ...where, status: "owed" })
    .first()) as OwedRefundRow | undefined;
}

/** Retries at most `limit` owed refunds that are due at `now`, oldest due first; returns how many were made. */
export async function retryOwedRefunds(deps: RefundDeps, now: Date, limit: number): Promise<number> {
  const due = (await unscoped(
    deps.db,
    "owed refunds across teams, each settled on its own team",
  )("payment_refunds_owed")
    .where({ status: "owed" })
    .where("next_attempt_at", "<=", now)
    .orderBy("next_attempt_at")
    .limit(limit)) as OwedRefundRow[];
  let made = 0;
  for (const row of due) if (await settleOwedRefund(deps, row, now)) made++;
  return made;
}

/** What an operator is shown: every refund still owed, oldest first. */
export async function listOwedRefunds(db: Db): Promise<Record<string, unknown>[]> {
  const rows = (await unscoped(
    db,
    "the operator lists owed refunds across teams",
  )("payment_refunds_owed")
    .where({ status: "owed" })
    .orderBy("created_at")) as OwedRefundRow[];
  return rows.map((r) => ({
    id: r.id,
    team_id: r.team_id,
    project_id: r.project_id,
    reason: r.reason,
    checkout_id: r.checkout_id,
    event_id: r.event_id,
    provider: r.provider,
    payment_id: r.provider_payment_id,
    amount_minor: Number(r.amount_minor),
    currency: r.currency,
    attempts: r.attempts,
    next_attempt_at: new Date(r.next_attempt_at).toISOString(),
    last_error: r.last_error,
    owed_since: new Date(r.created_at).toISOString(),
  }));
}
