// Products, prices, customers, coupons and promotion codes, with Stripe's parameter checks.
import { randomBytes } from "node:crypto";
import { invalidRequest, type Params } from "./errors.ts";
import type { RequestContext } from "./requests.ts";
import { newId, type StripeObject } from "./state.ts";

// --- Catalogue and customers --------------------------------------------------------------------

export function createProduct(ctx: RequestContext) {
  const { p, state, account } = ctx;
  const now = state.wallNow();
  const product = state.put(account, {
    id: p.string("id") || newId("prod_", 14),
    object: "product",
    active: p.boolean("active") ?? true,
    created: now,
    default_price: null,
    description: p.string("description") || null,
    images: [],
    livemode: false,
    metadata: p.metadata() ?? {},
    name: p.string("name", true),
    type: "service",
    updated: now,
    url: p.string("url") || null,
  });
  const defaultPrice = p.hash("default_price_data");
  if (defaultPrice) (product as StripeObject).default_price = buildPrice(ctx, defaultPrice, product.id).id;
  return product;
}

function buildPrice(ctx: RequestContext, p: Params, product: string) {
  const recurring = p.hash("recurring");
  const interval = recurring?.oneOf("interval", ["day", "week", "month", "year"] as const, true);
  const intervalCount = recurring?.integer("interval_count", false, 1) ?? 1;
  const maxYears = { day: 3 * 365, week: 156, month: 36, year: 3 };
  if (interval && intervalCount > maxYears[interval])
    throw invalidRequest("The maximum billing interval is 3 years (36 months, 156 weeks or 1095 days).", recurring!.name("interval_count"));
  const currency = p.string("currency", true).toLowerCase();
  if (!/^[a-z]{3}$/.test(currency)) throw invalidRequest(`Invalid currency: ${currency}.`, p.name("currency"), "parameter_invalid");
  const unitAmount = p.integer("unit_amount", true, 0)!;
  return ctx.state.put(ctx.account, {
    id: newId("price_"),
    object: "price",
    active: p.boolean("active") ?? true,
    billing_scheme: "per_unit",
    created: ctx.state.wallNow(),
    currency,
    livemode: false,
    lookup_key: p.string("lookup_key") ?? null,
    metadata: p.metadata() ?? {},
    nickname: p.string("nickname") ?? null,
    product,
    recurring: interval ? { interval, interval_count: intervalCount, meter: null, usage_type: "licensed" } : null,
    tax_behavior: "unspecified",
    type: interval ? "recurring" : "one_time",
    unit_amount: unitAmount,
    unit_amount_decimal: String(unitAmount),
  });
}

export function createPrice(ctx: RequestContext) {
  const { p, state, account } = ctx;
  if (p.has("product") && p.has("product_data"))
    throw invalidRequest("You may only specify one of these parameters: product, product_data.", "product");
  const productData = p.hash("product_data");
  const product = productData ? createProduct({ ...ctx, p: productData }).id : state.get(account, p.string("product", true), "product", "product").id;
  return buildPrice(ctx, p, product);
}

export function createCustomer(ctx: RequestContext) {
  const { p, state, account } = ctx;
  const clock = p.string("test_clock");
  if (clock) state.get(account, clock, "test_helpers.test_clock", "test_clock");
  const customer = state.put(account, {
    id: newId("cus_", 14),
    object: "customer",
    created: state.now(clock),
    description: p.string("description") || null,
    email: p.string("email") || null,
    invoice_settings: { default_payment_method: null },
    livemode: false,
    metadata: p.metadata() ?? {},
    name: p.string("name") || null,
    test_clock: clock ?? null,
  });
  state.emit(account, "customer.created", customer);
  return customer;
}

export function createCoupon(ctx: RequestContext) {
  const { p, state, account } = ctx;
  const percentOff = p.decimal("percent_off");
  const amountOff = p.integer("amount_off", false, 1);
  if ((percentOff === undefined) === (amountOff === undefined))
    throw invalidRequest("You must pass exactly one of percent_off or amount_off.", "percent_off");
  if (percentOff !== undefined && (percentOff <= 0 || percentOff > 100))
    throw invalidRequest("percent_off must be between 0 and 100.", "percent_off");
  if (amountOff !== undefined && !p.has("currency")) throw missingCurrency();
  const duration = p.oneOf("duration", ["once", "repeating", "forever"] as const) ?? "once";
  const months = p.integer("duration_in_months", false, 1);
  if (duration === "repeating" && months === undefined)
    throw invalidRequest("duration_in_months is required when duration is repeating.", "duration_in_months", "parameter_missing");
  const id = p.string("id") || randomBytes(6).toString("base64url").replace(/[-_]/g, "X").toUpperCase().slice(0, 8);
  if (state.exists(id)) throw invalidRequest("Coupon already exists.", "id", "resource_already_exists");
  return state.put(account, {
    id,
    object: "coupon",
    amount_off: amountOff ?? null,
    created: state.wallNow(),
    currency: amountOff !== undefined ? p.string("currency", true).toLowerCase() : null,
    duration,
    duration_in_months: duration === "repeating" ? months : null,
    livemode: false,
    max_redemptions: p.integer("max_redemptions", false, 1) ?? null,
    metadata: p.metadata() ?? {},
    name: p.string("name") || null,
    percent_off: percentOff ?? null,
    redeem_by: p.integer("redeem_by") ?? null,
    times_redeemed: 0,
    valid: true,
  });
}

const missingCurrency = () => invalidRequest("You must pass currency when passing amount_off.", "currency", "parameter_missing");

export function createPromotionCode(ctx: RequestContext) {
  const { p, state, account } = ctx;
  const promotion = p.hash("promotion", true)!;
  promotion.oneOf("type", ["coupon"] as const, true);
  const coupon = state.get(account, promotion.string("coupon", true), "coupon", promotion.name("coupon"));
  const code = p.string("code") || randomBytes(6).toString("hex").toUpperCase();
  if (state.all(account, "promotion_code").some((c) => c.active && c.code === code))
    throw invalidRequest(`An active promotion code with \`code: ${code}\` already exists.`, "code", "resource_already_exists");
  return state.put(account, {
    id: newId("promo_"),
    object: "promotion_code",
    active: p.boolean("active") ?? true,
    code,
    created: state.wallNow(),
    customer: p.string("customer") ?? null,
    expires_at: p.integer("expires_at") ?? null,
    livemode: false,
    max_redemptions: p.integer("max_redemptions", false, 1) ?? null,
    metadata: p.metadata() ?? {},
    promotion: { coupon: coupon.id, type: "coupon" },
    restrictions: { first_time_transaction: false, minimum_amount: null, minimum_amount_currency: null },
    times_redeemed: 0,
  });
}
