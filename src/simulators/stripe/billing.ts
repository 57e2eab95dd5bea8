// Subscriptions and their invoices: a subscription starts (trialing or with a paid first invoice),
// renews at each period end with an invoice paid from the customer's card, goes past_due when that
// fails and is retried 3, 5 and 7 days later before it is canceled, and ends at the period end when
// cancel_at_period_end is set. Coupons discount invoices once, for some months, or forever.
import { cardError, invalidRequest } from "./errors.ts";
import { chargeFails, pay } from "./payments.ts";
import { clone, newId, type Account, type StripeObject, type SubscriptionBook, type TwinState } from "./state.ts";

/** Days after the failed renewal at which the invoice is retried; after the last, the subscription is canceled. */
export const RETRY_DAYS = [3, 5, 7];

export function bookOf(state: TwinState, id: string): SubscriptionBook {
  let book = state.books.get(id);
  if (!book) state.books.set(id, (book = { failures: 0, nextAttempt: null, failNext: false }));
  return book;
}

/** The next renewal (or retry) of this subscription fails whatever the card. */
export function failNextPayment(state: TwinState, subscription: string) {
  bookOf(state, subscription).failNext = true;
}

/** `from` moved on by `count` intervals, keeping the day of the month where the month has it (as Stripe's billing anchor). */
export function addInterval(from: number, interval: string, count: number): number {
  const date = new Date(from * 1000);
  if (interval === "day") return from + count * 86400;
  if (interval === "week") return from + count * 7 * 86400;
  const months = interval === "year" ? 12 * count : count;
  const day = date.getUTCDate();
  const target = new Date(
    Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1, date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds()),
  );
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(day, last));
  return Math.floor(target.getTime() / 1000);
}

/** The amount a coupon takes off `subtotal`. */
export function discountOf(coupon: StripeObject, subtotal: number): number {
  if (typeof coupon.percent_off === "number") return Math.round((subtotal * coupon.percent_off) / 100);
  return Math.min(subtotal, (coupon.amount_off as number) ?? 0);
}

/** A Discount object (di_) applying a coupon from `start`, with its end for a repeating coupon. */
export function createDiscount(
  state: TwinState,
  account: Account,
  input: {
    coupon: StripeObject;
    promotionCode: string | null;
    customer: string | null;
    subscription?: string | null;
    checkoutSession?: string | null;
    start: number;
  },
): StripeObject {
  const { coupon } = input;
  const end = coupon.duration === "repeating" ? addInterval(input.start, "month", coupon.duration_in_months as number) : null;
  coupon.times_redeemed = (coupon.times_redeemed as number) + 1;
  return state.put(account, {
    id: newId("di_"),
    object: "discount",
    checkout_session: input.checkoutSession ?? null,
    customer: input.customer,
    end,
    invoice: null,
    invoice_item: null,
    promotion_code: input.promotionCode,
    source: { coupon: coupon.id, type: "coupon" },
    start: input.start,
    subscription: input.subscription ?? null,
    subscription_item: null,
  });
}

const periodEnd = (sub: StripeObject) => (sub.items as { data: StripeObject[] }).data[0]!.current_period_end as number;

function setPeriod(sub: StripeObject, start: number, end: number) {
  for (const item of (sub.items as { data: StripeObject[] }).data) {
    item.current_period_start = start;
    item.current_period_end = end;
  }
}

/** The discount that applies to an invoice at `at`, if any; a `once` coupon is spent by the first invoice. */
function activeDiscount(state: TwinState, account: Account, sub: StripeObject, at: number): { discount: StripeObject; coupon: StripeObject } | null {
  const id = (sub.discounts as string[])[0];
  const discount = id ? state.find(account, id, "discount") : undefined;
  if (!discount) return null;
  const coupon = state.find(account, (discount.source as { coupon: string }).coupon, "coupon");
  if (!coupon || (discount.end !== null && at >= (discount.end as number))) return null;
  return { discount, coupon };
}

/** Creates, finalizes and attempts the invoice for one period of a subscription. */
export function invoiceFor(
  state: TwinState,
  account: Account,
  sub: StripeObject,
  input: { reason: string; start: number; end: number; trial: boolean; at: number; proration?: { item: StripeObject; amount: number } },
) {
  const items = input.proration ? [input.proration.item] : (sub.items as { data: StripeObject[] }).data;
  const lines = items.map((item) => {
    const price = item.price as StripeObject;
    const amount = input.proration ? input.proration.amount : input.trial ? 0 : (price.unit_amount as number) * (item.quantity as number);
    return {
      id: newId("il_"),
      object: "line_item",
      amount,
      currency: price.currency,
      description: input.proration
        ? `Remaining time on ${price.nickname ?? price.product} (prorated)`
        : input.trial
          ? `Trial period for ${price.nickname ?? price.product}`
          : `${item.quantity} × ${price.nickname ?? price.product}`,
      discount_amounts: [] as { amount: number; discount: string }[],
      livemode: false,
      metadata: {},
      parent: {
        type: "subscription_item_details",
        subscription_item_details: { subscription: sub.id, subscription_item: item.id, proration: !!input.proration },
      },
      period: { start: input.start, end: input.end },
      pricing: { type: "price_details", price_details: { price: price.id, product: price.product }, unit_amount_decimal: String(price.unit_amount) },
      quantity: item.quantity,
    };
  });
  const subtotal = lines.reduce((sum, line) => sum + line.amount, 0);
  const applied = subtotal > 0 ? activeDiscount(state, account, sub, input.at) : null;
  const off = applied ? discountOf(applied.coupon, subtotal) : 0;
  if (applied && off > 0) lines[0]!.discount_amounts.push({ amount: off, discount: applied.discount.id });
  const total = subtotal - off;
  const customer = state.find(account, sub.customer as string, "customer");
  // The customer's balance (a credit is negative) is applied to the invoice, and a negative total
  // (a downgrade's proration) becomes a credit, as Stripe's customer balance does.
  const startingBalance = (customer?.balance as number | undefined) ?? 0;
  const due = Math.max(0, total + startingBalance);
  const endingBalance = Math.min(0, total + startingBalance);
  if (customer) customer.balance = endingBalance;
  const invoice = state.put(account, {
    id: newId("in_"),
    object: "invoice",
    amount_due: due,
    amount_paid: 0,
    amount_remaining: due,
    attempt_count: 0,
    attempted: false,
    billing_reason: input.reason,
    collection_method: "charge_automatically",
    created: input.at,
    currency: sub.currency,
    customer: sub.customer,
    customer_email: customer?.email ?? null,
    customer_name: customer?.name ?? null,
    default_payment_method: null,
    discounts: applied && off > 0 ? [applied.discount.id] : [],
    ending_balance: endingBalance,
    starting_balance: startingBalance,
    lines: { object: "list", data: lines, has_more: false, url: "" },
    livemode: false,
    metadata: {},
    next_payment_attempt: null,
    number: `${String(sub.id).slice(4, 12).toUpperCase()}-${String(state.all(account, "invoice").length + 1).padStart(4, "0")}`,
    parent: { type: "subscription_details", quote_details: null, subscription_details: { metadata: clone(sub.metadata), subscription: sub.id } },
    payments: { object: "list", data: [], has_more: false, url: "" },
    period_end: input.end,
    period_start: input.start,
    status: "draft",
    status_transitions: { finalized_at: null, marked_uncollectible_at: null, paid_at: null, voided_at: null },
    subtotal,
    test_clock: sub.test_clock,
    total,
    total_discount_amounts: off > 0 && applied ? [{ amount: off, discount: applied.discount.id }] : [],
  });
  (invoice.lines as { url: string }).url = `/v1/invoices/${invoice.id}/lines`;
  (invoice.payments as { url: string }).url = `/v1/invoice_payments?invoice=${invoice.id}`;
  // A `once` coupon is spent by the first invoice it discounted.
  if (applied && off > 0 && applied.coupon.duration === "once") sub.discounts = [];
  state.emit(account, "invoice.created", invoice, { at: input.at });
  invoice.status = "open";
  (invoice.status_transitions as Record<string, unknown>).finalized_at = input.at;
  state.emit(account, "invoice.finalized", invoice, { at: input.at });
  return invoice;
}

/** Attempts an open invoice from the subscription's card; true when it is paid. */
export function attempt(state: TwinState, account: Account, sub: StripeObject, invoice: StripeObject, at: number): boolean {
  const book = bookOf(state, sub.id);
  invoice.attempt_count = (invoice.attempt_count as number) + 1;
  invoice.attempted = true;
  let paid = true;
  if ((invoice.amount_due as number) > 0) {
    const payment = pay(state, account, {
      amount: invoice.amount_due as number,
      currency: invoice.currency as string,
      customer: sub.customer as string,
      paymentMethod: sub.default_payment_method as string | null,
      description: invoice.billing_reason === "subscription_create" ? "Subscription creation" : "Subscription update",
      fail: book.failNext,
      at,
    });
    book.failNext = false;
    (invoice.payments as { data: unknown[] }).data.unshift({
      id: newId("inpay_"),
      object: "invoice_payment",
      amount_paid: payment.succeeded ? invoice.amount_due : null,
      amount_requested: invoice.amount_due,
      created: at,
      currency: invoice.currency,
      invoice: invoice.id,
      is_default: true,
      livemode: false,
      payment: { type: "payment_intent", payment_intent: payment.paymentIntent.id },
      status: payment.succeeded ? "paid" : "open",
      status_transitions: { canceled_at: null, paid_at: payment.succeeded ? at : null },
    });
    paid = payment.succeeded;
  }
  if (paid) {
    Object.assign(invoice, { status: "paid", amount_paid: invoice.amount_due, amount_remaining: 0, next_payment_attempt: null });
    (invoice.status_transitions as Record<string, unknown>).paid_at = at;
    book.failures = 0;
    book.nextAttempt = null;
    state.emit(account, "invoice.paid", invoice, { at });
    state.emit(account, "invoice.payment_succeeded", invoice, { at });
    return true;
  }
  book.failures += 1;
  book.nextAttempt = book.failures <= RETRY_DAYS.length ? (invoice.created as number) + RETRY_DAYS[book.failures - 1]! * 86400 : null;
  invoice.next_payment_attempt = book.nextAttempt;
  state.emit(account, "invoice.payment_failed", invoice, { at });
  return false;
}

/**
 * Starts a subscription for a checkout: trialing with a $0 invoice, or active with its first invoice
 * paid. A card that cannot pay refuses the start (checkout stays open), as Checkout does.
 */
export function startSubscription(
  state: TwinState,
  account: Account,
  input: {
    customer: StripeObject;
    lines: { price: StripeObject; quantity: number }[];
    trialDays: number | null;
    metadata: Record<string, string>;
    paymentMethod: string;
    coupon: StripeObject | null;
    promotionCode: string | null;
    checkoutSession: string;
  },
): { subscription: StripeObject; invoice: StripeObject } {
  const clock = (input.customer.test_clock as string | null) ?? null;
  const at = state.now(clock);
  if (!input.trialDays && chargeFails(state, input.paymentMethod)) throw cardError("card_declined", "Your card was declined.", "generic_decline");
  const recurring = input.lines[0]!.price.recurring as { interval: string; interval_count: number };
  const trialEnd = input.trialDays ? at + input.trialDays * 86400 : null;
  const end = trialEnd ?? addInterval(at, recurring.interval, recurring.interval_count);
  const id = newId("sub_");
  const sub: StripeObject = {
    id,
    object: "subscription",
    billing_cycle_anchor: end,
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: null,
    cancellation_details: { comment: null, feedback: null, reason: null },
    collection_method: "charge_automatically",
    created: at,
    currency: input.lines[0]!.price.currency,
    customer: input.customer.id,
    default_payment_method: input.paymentMethod,
    description: null,
    discounts: [],
    ended_at: null,
    items: {
      object: "list",
      data: input.lines.map((line) => ({
        id: newId("si_"),
        object: "subscription_item",
        created: at,
        current_period_end: end,
        current_period_start: at,
        discounts: [],
        metadata: {},
        price: clone(line.price),
        quantity: line.quantity,
        subscription: id,
      })),
      has_more: false,
      url: `/v1/subscription_items?subscription=${id}`,
    },
    latest_invoice: null,
    livemode: false,
    metadata: input.metadata,
    start_date: at,
    status: trialEnd ? "trialing" : "active",
    test_clock: clock,
    trial_end: trialEnd,
    trial_start: trialEnd ? at : null,
  };
  state.put(account, sub);
  if (input.coupon)
    sub.discounts = [
      createDiscount(state, account, {
        coupon: input.coupon,
        promotionCode: input.promotionCode,
        customer: input.customer.id,
        subscription: id,
        checkoutSession: input.checkoutSession,
        start: at,
      }).id,
    ];
  const invoice = invoiceFor(state, account, sub, { reason: "subscription_create", start: at, end, trial: trialEnd !== null, at });
  sub.latest_invoice = invoice.id;
  state.emit(account, "customer.subscription.created", sub, { at });
  attempt(state, account, sub, invoice, at);
  return { subscription: sub, invoice };
}

/** Ends a subscription now: customer.subscription.deleted. */
export function cancelSubscription(state: TwinState, account: Account, sub: StripeObject, reason: string, at: number) {
  if (sub.status === "canceled") throw invalidRequest(`This subscription has already been canceled: ${sub.id}.`, "subscription");
  Object.assign(sub, {
    status: "canceled",
    canceled_at: sub.canceled_at ?? at,
    ended_at: at,
    cancellation_details: { comment: null, feedback: null, reason },
  });
  bookOf(state, sub.id).nextAttempt = null;
  state.emit(account, "customer.subscription.deleted", sub, { at });
}

/** Sets or clears cancel_at_period_end (customer.subscription.updated). */
export function scheduleCancellation(sub: StripeObject, atPeriodEnd: boolean, at: number) {
  const before = clone(sub);
  Object.assign(sub, {
    cancel_at_period_end: atPeriodEnd,
    cancel_at: atPeriodEnd ? periodEnd(sub) : null,
    canceled_at: atPeriodEnd ? at : null,
    cancellation_details: { comment: null, feedback: null, reason: atPeriodEnd ? "cancellation_requested" : null },
  });
  return before;
}

function renew(state: TwinState, account: Account, sub: StripeObject) {
  const at = periodEnd(sub);
  if (sub.cancel_at_period_end) return cancelSubscription(state, account, sub, "cancellation_requested", at);
  const before = clone(sub);
  const recurring = (sub.items as { data: StripeObject[] }).data[0]!.price as StripeObject;
  const { interval, interval_count } = recurring.recurring as { interval: string; interval_count: number };
  const end = addInterval(at, interval, interval_count);
  setPeriod(sub, at, end);
  const invoice = invoiceFor(state, account, sub, { reason: "subscription_cycle", start: at, end, trial: false, at });
  sub.latest_invoice = invoice.id;
  sub.status = attempt(state, account, sub, invoice, at) ? "active" : "past_due";
  state.emitUpdated(account, "customer.subscription.updated", before, sub, at);
}

function retry(state: TwinState, account: Account, sub: StripeObject, at: number) {
  const invoice = state.get(account, sub.latest_invoice as string, "invoice");
  if (attempt(state, account, sub, invoice, at)) {
    const before = clone(sub);
    sub.status = "active";
    state.emitUpdated(account, "customer.subscription.updated", before, sub, at);
  } else if (bookOf(state, sub.id).nextAttempt === null) {
    cancelSubscription(state, account, sub, "payment_failed", at);
  }
}

/** Runs every renewal and retry that is due, earliest first, for the subscriptions on `clock` (null: the twin's clock). */
export function runDue(state: TwinState, clock: string | null) {
  for (;;) {
    let next: { at: number; account: Account; sub: StripeObject; retry: boolean } | null = null;
    for (const { account, object: sub } of state.everywhere("subscription")) {
      if (((sub.test_clock as string | null) ?? null) !== clock || !["active", "trialing", "past_due"].includes(sub.status as string)) continue;
      const book = bookOf(state, sub.id);
      const isRetry = sub.status === "past_due";
      const due = isRetry ? book.nextAttempt : periodEnd(sub);
      if (due === null || due > state.now(clock)) continue;
      if (!next || due < next.at) next = { at: due, account, sub, retry: isRetry };
    }
    if (!next) return;
    if (next.retry) retry(state, next.account, next.sub, next.at);
    else renew(state, next.account, next.sub);
  }
}
