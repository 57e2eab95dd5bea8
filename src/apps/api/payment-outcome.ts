// What follows an applied provider event, whichever provider reported it: a change to a member's
// subscription syncs their platform access at once (the connector sweep retries what fails), and
// a payment made while another subscription was already live is refunded at once; a refund that
// fails is logged at error level, since the checkout is recorded as superseded and the money owed.
import type { Logger } from "pino";
import type { Db } from "../../db/tenant.ts";
import { syncPlatformAccess, type AccessSyncEnvironment } from "../../modules/connectors/access-sync.ts";
import type { ApplyOutcome } from "../../modules/payments/apply.ts";
import type { ProviderPayment } from "../../modules/payments/provider.ts";

export interface OutcomeDeps extends AccessSyncEnvironment {
  db: Db;
  logger: Logger;
}

export async function actOnPaymentOutcome(
  deps: OutcomeDeps,
  result: ApplyOutcome,
  now: Date,
  input: { refund: (payment: ProviderPayment) => Promise<void>; log: Record<string, unknown> },
): Promise<void> {
  if (result.outcome === "applied") {
    await syncPlatformAccess(deps.db, deps, now, { memberId: result.memberId }, deps.logger).catch((err: unknown) =>
      deps.logger.warn({ ...input.log, err }, "access sync after a payment failed; the sweep retries"),
    );
  }
  if (result.outcome === "superseded" && result.refund) {
    try {
      await input.refund(result.refund);
    } catch (err) {
      // The checkout is recorded as superseded; the refund is owed and must not be lost silently.
      deps.logger.error(
        { ...input.log, payment_id: result.refund.providerPaymentId, err },
        "refund of a payment made during a live subscription failed",
      );
    }
  }
}
