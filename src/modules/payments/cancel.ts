// A creator's (or an agent's) cancellation of a provider-billed subscription must stop the
// provider's renewals, or the member would go on being charged for a subscription that ends. The
// provider is asked first, before the cancellation's transaction opens (a preflight: no HTTP inside
// a transaction); its own report of the scheduled cancellation then arrives and changes nothing
// more. A provider that cannot be reached refuses the cancellation: nothing changes on either side.
import { ApiError } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { paymentMethodsTable, type PaymentMethodRow } from "../payment-methods/tables.ts";
import { subscriptionsTable, LIVE_STATUSES, type SubscriptionRow } from "../subscriptions/tables.ts";
import type { ProviderRegistry } from "./providers.ts";

/** Stops the provider's renewals of subscription `id` when a provider bills it; does nothing otherwise. */
export async function cancelAtProvider(ctx: DomainContext, registry: ProviderRegistry, id: string): Promise<void> {
  const row = (await subscriptionsTable.rows(ctx).where({ id }).first()) as SubscriptionRow | undefined;
  // Unknown, not live or not provider-billed: the cancellation itself answers (404, the refusal, or a local cancel).
  if (!row || !LIVE_STATUSES.includes(row.status) || !row.provider || !row.provider_subscription_id) return;
  const method = row.payment_method_id
    ? ((await paymentMethodsTable.rows(ctx).where({ id: row.payment_method_id }).first()) as PaymentMethodRow | undefined)
    : undefined;
  const target = method ? await registry.providerFor(method) : null;
  if (!target) {
    throw new ApiError(
      "PAYMENT_METHOD_NOT_CONFIGURED",
      `The subscription is billed by ${row.provider} through a payment method this deployment cannot reach; nothing was changed.`,
      {
        context: { subscription_id: row.id, provider: row.provider },
      },
    );
  }
  try {
    await target.provider.cancelAtPeriodEnd(target.method, row.provider_subscription_id);
  } catch {
    throw new ApiError("SERVICE_BUSY", `${row.provider} did not accept the cancellation just now; nothing was changed. Try again.`, {
      headers: { "Retry-After": "5" },
      context: { subscription_id: row.id, provider: row.provider },
    });
  }
}
