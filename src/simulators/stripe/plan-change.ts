// A subscription's plan change on the twin: an item's price swapped now, with Stripe's proration
// behaviours and the customer balance (see changeItemPrice).
import { attempt, bookOf, invoiceFor } from "./billing.ts";
import { cardError, invalidRequest } from "./errors.ts";
import { clone, type Account, type StripeObject, type TwinState } from "./state.ts";

/**
 * Swaps a subscription item's price now (items[][id] with items[][price] on a subscription update).
 * always_invoice bills the rest of the period's difference at once (billing_reason
 * subscription_update): a positive amount is charged from the card, a negative one is credited to
 * the customer's balance, which later invoices use; create_prorations leaves the difference on the
 * balance for the next invoice; none charges nothing. With payment_behavior error_if_incomplete a
 * charge that fails leaves the subscription as it was (the invoice is voided) and answers a 402.
 */
export function changeItemPrice(
  state: TwinState,
  account: Account,
  sub: StripeObject,
  input: { item: string; price: StripeObject; quantity?: number; proration: string; paymentBehavior: string; param: string },
) {
  const item = (sub.items as { data: StripeObject[] }).data.find((i) => i.id === input.item);
  if (!item) throw invalidRequest(`No such subscription item: '${input.item}'`, input.param);
  const old = item.price as StripeObject;
  const next = input.price;
  if (next.type !== "recurring" || next.currency !== sub.currency)
    throw invalidRequest("The new price must be recurring and in the subscription's currency.", input.param);
  const [a, b] = [old.recurring, next.recurring] as { interval: string; interval_count: number }[];
  if (a!.interval !== b!.interval || a!.interval_count !== b!.interval_count)
    throw invalidRequest("The twin changes a subscription only to a price with the same interval.", input.param);
  const at = state.now(sub.test_clock as string | null);
  const quantity = input.quantity ?? (item.quantity as number);
  const [start, end] = [item.current_period_start as number, item.current_period_end as number];
  const fraction = end > start ? Math.min(1, Math.max(0, (end - at) / (end - start))) : 0;
  const difference = Math.round(((next.unit_amount as number) * quantity - (old.unit_amount as number) * (item.quantity as number)) * fraction);
  if (input.proration === "always_invoice" && difference !== 0) {
    const line = { ...item, price: next, quantity };
    const invoice = invoiceFor(state, account, sub, {
      reason: "subscription_update",
      start: at,
      end,
      trial: false,
      at,
      proration: { item: line, amount: difference },
    });
    if (!attempt(state, account, sub, invoice, at)) {
      // A failed proration is no renewal: the subscription's retry schedule is left as it was.
      const book = bookOf(state, sub.id);
      Object.assign(book, { failures: book.failures - 1, nextAttempt: null });
      if (input.paymentBehavior === "error_if_incomplete") {
        Object.assign(invoice, { status: "void", next_payment_attempt: null });
        state.emit(account, "invoice.voided", invoice, { at });
        throw cardError("card_declined", "Your card was declined.", "generic_decline");
      }
    }
    sub.latest_invoice = invoice.id;
  } else if (input.proration === "create_prorations" && difference !== 0) {
    const customer = state.find(account, sub.customer as string, "customer");
    if (customer) customer.balance = ((customer.balance as number | undefined) ?? 0) + difference;
  }
  Object.assign(item, { price: clone(next), quantity });
}
