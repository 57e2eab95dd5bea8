// Provider events applied and acted on, whichever way they arrived (Stripe's webhook route, the
// bot's Telegram updates, payments.reconcile reading the provider's history): each is applied once
// (applyProviderEvent's inbox), then a change to a member's subscription syncs their platform
// access at once (the connector sweep retries what fails), and a payment made while another
// subscription was already live, or by a report that did not match what it named, is refunded. The refund is owed from the commit that recorded the
// superseded checkout (reconcile-owed.ts); one that fails here is retried by payments.reconcile.
import type { Logger } from "pino";
import type { Db } from "../../db/tenant.ts";
import { syncPlatformAccess, type AccessSyncEnvironment } from "../connectors/access-sync.ts";
import { applyProviderEvent, type ApplyOutcome } from "./apply.ts";
import type { ProviderEvent, ProviderName } from "./provider.ts";
import type { ProviderRegistry } from "./providers.ts";
import { owedRefundFor, settleOwedRefund } from "./reconcile-refunds.ts";

export interface OutcomeDeps extends AccessSyncEnvironment {
  db: Db;
  logger: Logger;
  /** Where a superseded payment is refunded through (the payment method of its checkout). */
  registry: ProviderRegistry;
}

export interface OutcomeInput {
  provider: ProviderName;
  /** Fields every log line of these events carries (the installation, the account). */
  log: Record<string, unknown>;
}

export async function actOnPaymentOutcome(deps: OutcomeDeps, result: ApplyOutcome, now: Date, input: OutcomeInput): Promise<void> {
  if (result.outcome === "applied") {
    await syncPlatformAccess(deps.db, deps, now, { memberId: result.memberId }, deps.logger).catch((err: unknown) =>
      deps.logger.warn({ ...input.log, err }, "access sync after a payment failed; the sweep retries"),
    );
  }
  const owedRefund =
    result.outcome === "superseded" && result.refund
      ? { provider: input.provider, providerPaymentId: result.refund.providerPaymentId }
      : result.outcome === "mismatched" && result.owedRefundId
        ? { id: result.owedRefundId }
        : null;
  if (owedRefund) {
    const owed = await owedRefundFor(deps.db, owedRefund);
    // Recorded in the outcome's transaction; absent only when it was settled already.
    if (owed) await settleOwedRefund(deps, owed, now);
  }
}

/** Applies `events` in order, each once, and acts on each outcome; returns the outcomes. */
export async function applyProviderEvents(
  deps: OutcomeDeps,
  events: readonly ProviderEvent[],
  now: Date,
  input: OutcomeInput,
): Promise<ApplyOutcome[]> {
  const outcomes: ApplyOutcome[] = [];
  for (const event of events) {
    const result = await applyProviderEvent(deps.db, input.provider, event, now);
    deps.logger.info({ ...input.log, event_id: event.eventId, kind: event.kind, outcome: result.outcome }, `${input.provider} event applied`);
    await actOnPaymentOutcome(deps, result, now, input);
    outcomes.push(result);
  }
  return outcomes;
}
