// A provider's report that did not match what it named (binding.ts; issue 43): it grants nothing,
// what it took is owed back from the account of ours that received it (reconcile-owed.ts), the named
// project's creators get one security alert, and the named subject's activity log says why.
import type { DomainContext } from "../../db/tenant.ts";
import { unscoped } from "../../db/tenant.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { alertPaymentMismatch } from "../alerts/producers.ts";
import { tagInbox } from "./inbox.ts";
import type { ProviderEvent, ProviderName } from "./provider.ts";
import { recordMismatchedRefund } from "./reconcile-owed.ts";

export interface MismatchedOutcome {
  outcome: "mismatched";
  reason: string;
  /** The refund owed for what the report took, settled by the caller after the commit; null when nothing of ours received anything. */
  owedRefundId: string | null;
}

/**
 * A report that did not match what it named: nothing is granted, what it took is owed back from the
 * account of ours that received it, and the named project's creators are alerted (its team tags the inbox).
 */
export async function refuseMismatched(
  ctx: DomainContext,
  provider: ProviderName,
  event: Extract<ProviderEvent, { kind: "checkout.completed" | "subscription.renewed" }>,
  named: { projectId: string; currency: string; subject: { type: "member" | "subscription"; id: string }; what: string },
  reason: string,
): Promise<MismatchedOutcome> {
  await tagInbox(ctx, provider, event);
  const owedRefundId = await recordMismatchedRefund(unscoped(ctx, "the money may have reached another team's account"), ctx.now, {
    provider,
    eventId: event.eventId,
    source: event.source,
    payment: event.payment,
    providerSubscriptionId: event.kind === "checkout.completed" ? event.providerSubscriptionId : null,
    currency: named.currency,
  });
  await recordActivity(ctx, {
    event: "payment_report_mismatched",
    description: `A ${provider} report for ${named.what} was refused: ${reason}`,
    subjectType: named.subject.type,
    subjectId: named.subject.id,
    projectId: named.projectId,
    properties: { provider, event_id: event.eventId, reason },
  });
  await alertPaymentMismatch(ctx, {
    projectId: named.projectId,
    provider,
    eventId: event.eventId,
    named: named.what,
    reason,
    refunding: owedRefundId !== null,
  });
  return { outcome: "mismatched", reason, owedRefundId };
}
