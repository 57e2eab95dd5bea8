// Checkout Sessions: created with the prices to sell (payment mode for one-time prices,
// subscription mode for recurring ones), shown on the twin's hosted page, completed by a card
// (customer, payment or subscription, then checkout.session.completed) or expired.
import { StripeApiError, invalidRequest, type Params } from "./errors.ts";
import { startSubscription, discountOf, createDiscount } from "./billing.ts";
import { cardEntryError, createPaymentMethod, pay, type Card } from "./payments.ts";
import { clone, newId, type Account, type SessionLine, type StripeObject, type TwinState } from "./state.ts";

/** The coupon behind a checkout's discount (a coupon id or a promotion code), checked as Stripe does. */
export function couponFor(
  state: TwinState,
  account: Account,
  input: { coupon?: string; promotionCode?: string },
  param: string,
  customer?: string | null,
) {
  if (input.promotionCode) {
    const code = state.get(account, input.promotionCode, "promotion_code", param);
    const now = state.wallNow();
    const exhausted = code.max_redemptions !== null && (code.times_redeemed as number) >= (code.max_redemptions as number);
    if (
      !code.active ||
      exhausted ||
      (code.expires_at !== null && now >= (code.expires_at as number)) ||
      (code.customer && code.customer !== customer)
    )
      throw invalidRequest(`This promotion code cannot be redeemed: ${input.promotionCode}.`, param);
    const coupon = state.get(account, (code.promotion as { coupon: string }).coupon, "coupon", param);
    return { coupon, promotionCode: code };
  }
  const coupon = state.get(account, input.coupon!, "coupon", param);
  if (!coupon.valid) throw invalidRequest(`Coupon ${coupon.id} is no longer valid.`, param);
  return { coupon, promotionCode: null };
}

/** Recomputes the session's amounts from its lines and discount. */
function total(session: StripeObject, lines: SessionLine[], coupon: StripeObject | null) {
  const subtotal = lines.reduce((sum, l) => sum + (l.price.unit_amount as number) * l.quantity, 0);
  const trial = (session as { subscription_data?: { trial_period_days?: number } }).subscription_data?.trial_period_days;
  const off = coupon ? discountOf(coupon, subtotal) : 0;
  session.amount_subtotal = subtotal;
  session.amount_total = subtotal - off;
  session.total_details = { amount_discount: off, amount_shipping: 0, amount_tax: 0 };
  session.payment_status = trial || session.amount_total === 0 ? "no_payment_required" : "unpaid";
}

export function createSession(state: TwinState, account: Account, p: Params, baseUrl: string): StripeObject {
  const mode = p.oneOf("mode", ["payment", "subscription", "setup"] as const, true);
  if (mode === "setup") throw invalidRequest("The twin does not support setup mode.", "mode");
  const items = p.hashes("line_items");
  if (items.length === 0) throw invalidRequest(`line_items is required in ${mode} mode.`, "line_items", "parameter_missing");
  const lines = items.map((item) => {
    if (item.has("price_data")) throw invalidRequest("The twin takes line_items[][price], not price_data.", item.name("price_data"));
    const price = state.get(account, item.string("price", true), "price", item.name("price"));
    if (!price.active) throw invalidRequest(`The price specified is inactive. This field only accepts active prices.`, item.name("price"));
    return { price: clone(price), quantity: item.integer("quantity", false, 1) ?? 1 };
  });
  const currency = lines[0]!.price.currency;
  if (lines.some((l) => l.price.currency !== currency))
    throw invalidRequest("All prices on a Checkout Session must use the same currency.", "line_items");
  const recurring = lines.filter((l) => l.price.type === "recurring");
  if (mode === "payment" && recurring.length)
    throw invalidRequest(
      "You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.",
      "line_items",
    );
  if (mode === "subscription" && recurring.length === 0)
    throw invalidRequest("You must provide at least one recurring price in `subscription` mode when using prices.", "line_items");
  if (p.has("customer") && p.has("customer_email"))
    throw invalidRequest("You may only specify one of these parameters: customer, customer_email.", "customer");
  const customer = p.has("customer") ? state.get(account, p.string("customer", true), "customer", "customer") : null;
  const discounts = p.hashes("discounts");
  const allowCodes = p.boolean("allow_promotion_codes") ?? false;
  if (allowCodes && discounts.length)
    throw invalidRequest("You may only specify one of these parameters: allow_promotion_codes, discounts.", "discounts");
  if (discounts.length > 1) throw invalidRequest("You may only specify one discount.", "discounts");
  const first = discounts[0];
  const applied = first
    ? couponFor(
        state,
        account,
        { coupon: first.string("coupon"), promotionCode: first.string("promotion_code") },
        first.name(first.has("coupon") ? "coupon" : "promotion_code"),
        customer?.id,
      )
    : null;
  if (first && !first.has("coupon") && !first.has("promotion_code"))
    throw invalidRequest("A discount needs a coupon or a promotion_code.", first.name("coupon"));
  const subscriptionData = p.hash("subscription_data");
  if (subscriptionData && mode !== "subscription")
    throw invalidRequest("subscription_data can only be used in subscription mode.", "subscription_data");
  const trialDays = subscriptionData?.integer("trial_period_days", false, 1);
  const now = state.wallNow();
  const id = newId("cs_test_", 58);
  const session: StripeObject = {
    id,
    object: "checkout.session",
    allow_promotion_codes: allowCodes,
    amount_subtotal: 0,
    amount_total: 0,
    cancel_url: p.string("cancel_url") ?? null,
    client_reference_id: p.string("client_reference_id") ?? null,
    created: now,
    currency,
    customer: customer?.id ?? null,
    customer_details: null,
    customer_email: p.string("customer_email") ?? null,
    discounts: applied ? [{ coupon: applied.coupon.id, promotion_code: applied.promotionCode?.id ?? null }] : [],
    expires_at: p.integer("expires_at") ?? now + 24 * 3600,
    invoice: null,
    livemode: false,
    metadata: p.metadata() ?? {},
    mode,
    payment_intent: null,
    payment_method_types: ["card"],
    payment_status: "unpaid",
    status: "open",
    subscription: null,
    subscription_data: { trial_period_days: trialDays ?? null, metadata: subscriptionData?.metadata() ?? {} },
    success_url: p.string("success_url") ?? null,
    total_details: null,
    ui_mode: "hosted",
    url: `${baseUrl}/c/pay/${id}`,
  };
  total(session, lines, applied?.coupon ?? null);
  state.sessionLines.set(state.put(account, session).id, lines);
  return session;
}

/** The session, expired first when its expires_at has passed. */
export function currentSession(state: TwinState, account: Account, id: string): StripeObject {
  const session = state.get(account, id, "checkout.session", "session");
  if (session.status === "open" && state.wallNow() >= (session.expires_at as number)) expireSession(state, account, session);
  return session;
}

export function expireSession(state: TwinState, account: Account, session: StripeObject) {
  if (session.status !== "open") throw invalidRequest(`Only Checkout Sessions with a status in ["open"] can be expired.`, "session");
  Object.assign(session, { status: "expired", url: null });
  state.emit(account, "checkout.session.expired", session);
}

/** The session's line items as Stripe lists them (`item` objects). */
export function lineItems(state: TwinState, session: StripeObject) {
  return {
    object: "list",
    data: (state.sessionLines.get(session.id) ?? []).map((l, i) => ({
      id: `li_${String(session.id).slice(8, 24)}${i}`,
      object: "item",
      amount_discount: 0,
      amount_subtotal: (l.price.unit_amount as number) * l.quantity,
      amount_tax: 0,
      amount_total: (l.price.unit_amount as number) * l.quantity,
      currency: l.price.currency,
      description: l.price.nickname ?? null,
      price: l.price,
      quantity: l.quantity,
    })),
    has_more: false,
    url: `/v1/checkout/sessions/${session.id}/line_items`,
  };
}

export interface CheckoutEntry {
  card: Card;
  email?: string;
  name?: string;
  promotionCode?: string;
}

/**
 * Completes an open session with a card: the customer (created unless given), its payment method,
 * then the payment or the subscription, and checkout.session.completed. A declined card throws a
 * 402 card error and leaves the session open. Returns the success URL with the session id in it.
 */
export function completeSession(state: TwinState, account: Account, session: StripeObject, entry: CheckoutEntry): string | null {
  if (session.status !== "open") throw invalidRequest(`This Checkout Session is no longer active (${session.status}).`, "session");
  const lines = state.sessionLines.get(session.id)!;
  let customer = session.customer ? state.get(account, session.customer as string, "customer") : null;
  const email = (customer?.email as string | null) ?? (session.customer_email as string | null) ?? entry.email?.trim() ?? "";
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email))
    throw new StripeApiError(400, "invalid_request_error", "Enter a valid email address.", "email_invalid", "email");
  const at = state.now((customer?.test_clock as string | null) ?? null);
  const declined = cardEntryError(entry.card, at);
  if (declined) throw declined;
  let coupon: StripeObject | null = null;
  let promotionCode: string | null = null;
  const existing = (session.discounts as { coupon: string; promotion_code: string | null }[])[0];
  if (existing) {
    coupon = state.get(account, existing.coupon, "coupon");
    promotionCode = existing.promotion_code;
  } else if (entry.promotionCode && session.allow_promotion_codes) {
    const code = state.all(account, "promotion_code").find((c) => c.code === entry.promotionCode!.trim() && c.active);
    if (!code) throw new StripeApiError(400, "invalid_request_error", "This code is invalid.", "promotion_code_invalid", "promotion_code");
    ({ coupon } = couponFor(state, account, { promotionCode: code.id }, "promotion_code", customer?.id));
    promotionCode = code.id;
    session.discounts = [{ coupon: coupon.id, promotion_code: code.id }];
    total(session, lines, coupon);
  }
  if (!customer) {
    customer = state.put(account, {
      id: newId("cus_", 14),
      object: "customer",
      created: at,
      description: null,
      email,
      invoice_settings: { default_payment_method: null },
      livemode: false,
      metadata: {},
      name: entry.name?.trim() || null,
      test_clock: null,
    });
    state.emit(account, "customer.created", customer, { at });
  }
  const pm = createPaymentMethod(state, account, entry.card, customer.id as string, entry.name?.trim() || null, at);
  if (session.mode === "subscription") {
    const data = session.subscription_data as { trial_period_days: number | null; metadata: Record<string, string> };
    const { subscription, invoice } = startSubscription(state, account, {
      customer,
      lines,
      trialDays: data.trial_period_days,
      metadata: data.metadata,
      paymentMethod: pm.id,
      coupon,
      promotionCode,
      checkoutSession: session.id,
    });
    Object.assign(session, { subscription: subscription.id, invoice: invoice.id });
  } else if ((session.amount_total as number) > 0) {
    const payment = pay(state, account, {
      amount: session.amount_total as number,
      currency: session.currency as string,
      customer: customer.id,
      paymentMethod: pm.id,
      description: null,
      metadata: session.metadata as Record<string, string>,
      at,
    });
    if (!payment.succeeded)
      throw new StripeApiError(402, "card_error", "Your card was declined.", "card_declined", undefined, { decline_code: "generic_decline" });
    session.payment_intent = payment.paymentIntent.id;
    if (coupon) createDiscount(state, account, { coupon, promotionCode, customer: customer.id, checkoutSession: session.id, start: at });
  }
  if (promotionCode) {
    const code = state.get(account, promotionCode, "promotion_code");
    code.times_redeemed = (code.times_redeemed as number) + 1;
  }
  (customer.invoice_settings as Record<string, unknown>).default_payment_method = pm.id;
  Object.assign(session, {
    status: "complete",
    payment_status: session.payment_status === "no_payment_required" ? "no_payment_required" : "paid",
    customer: customer.id,
    customer_details: { address: null, email, name: entry.name?.trim() || null, phone: null, tax_exempt: "none", tax_ids: [] },
    url: null,
  });
  state.emit(account, "checkout.session.completed", session, { at });
  return session.success_url ? String(session.success_url).replace("{CHECKOUT_SESSION_ID}", session.id) : null;
}
