// Reconciliation with Telegram Stars (payments.reconcile, reconcile.ts): the bot's ledger
// (getStarTransactions, oldest first) is read from the installation's cursor, and a payment the
// inbox lacks is applied under the update's own event id: the first payment of one of our open or
// expired checkouts completes it, a later one of one of our Stars subscriptions renews it.
import { unscoped, type Db } from "../../db/tenant.ts";
import { UUID } from "../../uuid.ts";
import { installationSession } from "../connectors/bot/session.ts";
import type { InstallationRow } from "../connectors/tables.ts";
import { applyProviderEvents } from "./outcome.ts";
import type { ProviderEvent } from "./provider.ts";
import { changes, cursorOf, PAGE, saveCursor, seen, unix, type Run } from "./reconcile-cursors.ts";
import { starsPaymentId, starsSubscriptionId } from "./stars/ids.ts";
import { fromUnix } from "./stripe/payments.ts";
import type { CheckoutRow } from "./tables.ts";

/** Pages of 100 ledger transactions read per Telegram installation and run. */
export const LEDGER_PAGES = 10;

export async function reconcileStarsInstallation(run: Run, installation: InstallationRow): Promise<number> {
  const payments = installationSession(run.connectors, installation).payments;
  if (!payments) return 0;
  const cursor = await cursorOf(run.db, "telegram_stars", installation.id);
  let offset = cursor?.ledger_offset ?? 0;
  let changed = 0;
  // Whatever team the payload names: a payment to this bot for another project's checkout is applied as mismatched (refunded, alerted).
  const db = unscoped(run.db, "a ledger entry is matched to the checkout or subscription it names, then held to it (binding.ts)");
  for (let page = 0; page < LEDGER_PAGES; page++) {
    const transactions = await payments.transactions({ offset, limit: PAGE });
    for (const tx of transactions) {
      if (tx.direction !== "in" || tx.userId === null || tx.payload === null) continue;
      // The update's own event id (parseStarsUpdate), so a late update and this agree on what was applied.
      const eventId = `telegram:${tx.id}`;
      if (await seen(run.db, "telegram_stars", eventId)) continue;
      const paidAt = fromUnix(tx.date);
      const payment = { providerPaymentId: starsPaymentId(tx.userId, tx.id), amountMinor: tx.amount, currency: "XTR", feeMinor: null, paidAt };
      // Telegram's ledger has no expiration date: a first period runs from the payment.
      const periodEndsAt = tx.subscriptionPeriod ? fromUnix(tx.date + tx.subscriptionPeriod) : null;
      const subscriptionId = tx.subscriptionPeriod ? starsSubscriptionId(tx.userId, tx.payload) : null;
      const checkout = UUID.test(tx.payload)
        ? ((await db("payment_checkouts").where({ id: tx.payload, provider: "telegram_stars" }).first()) as CheckoutRow | undefined)
        : undefined;
      let event: ProviderEvent | null = null;
      if (checkout && (checkout.status === "open" || checkout.status === "expired"))
        event = {
          kind: "checkout.completed",
          eventId,
          occurredAt: paidAt,
          source: installation.id,
          reference: tx.payload,
          providerCheckoutId: null,
          providerSubscriptionId: subscriptionId,
          providerCustomerId: tx.userId,
          payment,
          trialEndsAt: null,
          periodEndsAt,
        };
      else if (subscriptionId && tx.subscriptionPeriod) {
        const known = (await db("subscriptions").where({ provider: "telegram_stars", provider_subscription_id: subscriptionId }).first("ends_at")) as
          { ends_at: Date | null } | undefined;
        // Telegram moves the expiration on by one period per renewal (from the expiration, not the charge).
        const from = Math.max(tx.date, known?.ends_at ? unix(new Date(known.ends_at)) : 0);
        if (known)
          event = {
            kind: "subscription.renewed",
            eventId,
            occurredAt: paidAt,
            source: installation.id,
            providerSubscriptionId: subscriptionId,
            payment,
            periodEndsAt: fromUnix(from + tx.subscriptionPeriod),
          };
      }
      if (event)
        changed += changes(
          await applyProviderEvents(run, [event], run.now, { provider: "telegram_stars", log: { installation_id: installation.id } }),
        );
    }
    offset += transactions.length;
    if (transactions.length < PAGE) break;
  }
  await saveCursor(run.db, "telegram_stars", installation.id, run.now, { ledger_offset: offset });
  return changed;
}

export async function starsInstallations(db: Db): Promise<InstallationRow[]> {
  return (await unscoped(
    db,
    "reconciliation visits every team's Telegram installations that sell in Stars",
  )("connector_installations")
    .where({ connector_key: "telegram", status: "active" })
    .whereExists(function () {
      this.select(1)
        .from("payment_methods")
        .whereRaw("payment_methods.project_id = connector_installations.project_id")
        .where({ "payment_methods.provider": "telegram_stars", "payment_methods.enabled": true });
    })
    .orderBy("created_at")) as InstallationRow[];
}
