// The API's resources as Stripe names them: each route reads its parameters with Stripe's checks
// and answers the object (or a list object); unknown ids answer 404 resource_missing.
import { randomBytes } from "node:crypto";
import { cancelSubscription, runDue, scheduleCancellation } from "./billing.ts";
import { changeItemPrice } from "./plan-change.ts";
import { createSession, currentSession, expireSession, lineItems } from "./checkout.ts";
import { invalidRequest, StripeApiError } from "./errors.ts";
import { closeDispute, openDispute, refund } from "./payments.ts";
import { clone, newId, type TwinState } from "./state.ts";
import { SECRET_PREFIX } from "./webhooks.ts";
import { createAccount, createAccountLink } from "./accounts.ts";
import { createCoupon, createCustomer, createPrice, createProduct, createPromotionCode } from "./catalog.ts";
import { createdRange, deleted, list, update, byField, type Handler, type RequestContext } from "./requests.ts";

export { completeOnboarding } from "./accounts.ts";
export { expand } from "./requests.ts";

// --- Webhook endpoints, events, test clocks -----------------------------------------------------

function endpointObject(state: TwinState, id: string) {
  const e = state.endpoints.get(id)!;
  return { ...state.get(null, id, "webhook_endpoint"), url: e.url, enabled_events: e.enabledEvents, status: e.status };
}

function createEndpoint(ctx: RequestContext) {
  const { p, state } = ctx;
  const url = p.string("url", true);
  if (!/^https?:\/\/[^\s]+$/.test(url)) throw invalidRequest(`Invalid URL: ${url}`, "url", "url_invalid");
  const enabledEvents = p.strings("enabled_events");
  if (enabledEvents.length === 0) throw invalidRequest("Missing required param: enabled_events.", "enabled_events", "parameter_missing");
  const secret = `${SECRET_PREFIX}${randomBytes(24).toString("base64url")}`;
  const endpoint = state.put(null, {
    id: newId("we_"),
    object: "webhook_endpoint",
    api_version: p.string("api_version") ?? null,
    application: null,
    created: state.wallNow(),
    description: p.string("description") ?? null,
    livemode: false,
    metadata: p.metadata() ?? {},
  });
  state.endpoints.set(endpoint.id, { id: endpoint.id, url, secret, connect: p.boolean("connect") ?? false, enabledEvents, status: "enabled" });
  // Stripe shows the signing secret only in the answer to the create.
  return { ...endpointObject(state, endpoint.id), secret };
}

function updateEndpoint(ctx: RequestContext) {
  const endpoint = ctx.state.endpoints.get(ctx.state.get(null, ctx.ids[0]!, "webhook_endpoint").id)!;
  if (ctx.p.has("url")) endpoint.url = ctx.p.string("url", true);
  if (ctx.p.has("enabled_events")) endpoint.enabledEvents = ctx.p.strings("enabled_events");
  const disabled = ctx.p.boolean("disabled");
  if (disabled !== undefined) endpoint.status = disabled ? "disabled" : "enabled";
  return endpointObject(ctx.state, endpoint.id);
}

function createClock(ctx: RequestContext) {
  const { p, state, account } = ctx;
  const frozen = p.integer("frozen_time", true)!;
  return state.put(account, {
    id: newId("clock_"),
    object: "test_helpers.test_clock",
    created: state.wallNow(),
    deletes_after: state.wallNow() + 30 * 86400,
    frozen_time: frozen,
    livemode: false,
    name: p.string("name") ?? null,
    status: "ready",
    status_details: {},
  });
}

/** Moves a test clock forward and runs what fell due; Stripe does this in the background, so the answer says `advancing`. */
function advanceClock(ctx: RequestContext) {
  const { p, state, account } = ctx;
  const clock = state.get(account, ctx.ids[0]!, "test_helpers.test_clock", "test_clock");
  const to = p.integer("frozen_time", true)!;
  if (to <= (clock.frozen_time as number))
    throw invalidRequest("The frozen_time must be after the current frozen_time of the test clock.", "frozen_time");
  // A bound on the renewals one advance runs (Stripe bounds it by the clock's subscriptions' intervals).
  if (to - (clock.frozen_time as number) > 2 * 366 * 86400) throw invalidRequest("A test clock advances at most two years at a time.", "frozen_time");
  clock.frozen_time = to;
  runDue(state, clock.id);
  state.emit(account, "test_helpers.test_clock.ready", clock);
  return { ...clock, status: "advancing" };
}

// --- Subscriptions, money -----------------------------------------------------------------------

function updateSubscription(ctx: RequestContext) {
  const { p, state, account } = ctx;
  const sub = state.get(account, ctx.ids[0]!, "subscription", "subscription");
  if (sub.status === "canceled")
    throw invalidRequest("A canceled subscription can only update its cancellation_details and metadata.", "subscription");
  const before = clone(sub);
  const proration = p.oneOf("proration_behavior", ["always_invoice", "create_prorations", "none"] as const) ?? "create_prorations";
  const paymentBehavior =
    p.oneOf("payment_behavior", ["allow_incomplete", "default_incomplete", "error_if_incomplete", "pending_if_incomplete"] as const) ??
    "allow_incomplete";
  for (const entry of p.hashes("items")) {
    const price = entry.string("price");
    if (!entry.has("id") || !price)
      throw invalidRequest("The twin updates an existing item's price: pass items[][id] and items[][price].", entry.name("id"));
    changeItemPrice(state, account, sub, {
      item: entry.string("id", true),
      price: state.get(account, price, "price", entry.name("price")),
      quantity: entry.integer("quantity", false, 1),
      proration,
      paymentBehavior,
      param: entry.name("price"),
    });
  }
  const cancelAtPeriodEnd = p.boolean("cancel_at_period_end");
  if (cancelAtPeriodEnd !== undefined) scheduleCancellation(sub, cancelAtPeriodEnd, state.now(sub.test_clock as string | null));
  update(sub, p, {});
  state.emitUpdated(account, "customer.subscription.updated", before, sub);
  return sub;
}

function createRefund(ctx: RequestContext) {
  const { p, state, account } = ctx;
  if (p.has("charge") === p.has("payment_intent"))
    throw invalidRequest("You must pass exactly one of charge or payment_intent.", "charge", "parameter_missing");
  const charge = p.has("charge")
    ? state.get(account, p.string("charge", true), "charge", "charge")
    : state.get(account, state.get(account, p.string("payment_intent", true), "payment_intent", "payment_intent").latest_charge as string, "charge");
  return refund(state, account, charge, {
    amount: p.integer("amount", false, 1),
    reason: p.oneOf("reason", ["duplicate", "fraudulent", "requested_by_customer"] as const),
    metadata: p.metadata(),
    at: state.wallNow(),
  });
}

/** Stripe's test helper that a twin adds: disputes a charge (charge.dispute.created). */
function createDispute(ctx: RequestContext) {
  const charge = ctx.state.get(ctx.account, ctx.p.string("charge", true), "charge", "charge");
  return openDispute(ctx.state, ctx.account, charge, ctx.p.string("reason") ?? "fraudulent", ctx.state.wallNow());
}

/**
 * Submits evidence for a dispute. As in Stripe's test mode, the text `winning_evidence` wins it and
 * `losing_evidence` loses it (charge.dispute.closed); other evidence, or submit=false, only keeps it.
 */
function updateDispute(ctx: RequestContext) {
  const dispute = ctx.state.get(ctx.account, ctx.ids[0]!, "dispute", "dispute");
  const text = ctx.p.hash("evidence")?.string("uncategorized_text");
  if (text !== undefined) dispute.evidence = { ...((dispute.evidence as Record<string, unknown> | undefined) ?? {}), uncategorized_text: text };
  const outcome = text === "winning_evidence" ? "won" : text === "losing_evidence" ? "lost" : null;
  if (outcome && ctx.p.boolean("submit") !== false) return closeDispute(ctx.state, ctx.account, dispute, outcome, ctx.state.wallNow());
  return dispute;
}

// --- The routes -------------------------------------------------------------------------------

const retrieve = (kind: string) => (ctx: RequestContext) => ctx.state.get(ctx.account, ctx.ids[0]!, kind);

const listOf =
  (kind: string, path: string, filters: string[] = []) =>
  (ctx: RequestContext) =>
    list(ctx, createdRange(ctx, byField(ctx, ctx.state.all(ctx.account, kind), filters)), path);

const updatable = (kind: string, fields: Record<string, "string" | "boolean" | "integer">) => (ctx: RequestContext) =>
  update(ctx.state.get(ctx.account, ctx.ids[0]!, kind), ctx.p, fields);

/** Prices, filtered as Stripe filters them, including by `lookup_keys[]` (at most 10). */
function listPrices(ctx: RequestContext) {
  const keys = ctx.p.strings("lookup_keys");
  if (keys.length > 10) throw invalidRequest("You can specify up to 10 lookup_keys.", "lookup_keys");
  const prices = byField(ctx, ctx.state.all(ctx.account, "price"), ["product", "active", "currency", "type"]);
  return list(ctx, createdRange(ctx, keys.length ? prices.filter((p) => keys.includes(p.lookup_key as string)) : prices), "/v1/prices");
}

function platformOnly(handler: Handler): Handler {
  return (ctx) => {
    if (ctx.account)
      throw new StripeApiError(403, "invalid_request_error", "This call must be made by the platform, without the Stripe-Account header.");
    return handler(ctx);
  };
}

export const ROUTES: [string, RegExp, Handler][] = [
  ["GET", /^\/v1\/account$/, (ctx) => (ctx.account ? ctx.state.get(null, ctx.account, "account") : ctx.state.platform)],
  ["POST", /^\/v1\/accounts$/, createAccount],
  ["GET", /^\/v1\/accounts$/, platformOnly(listOf("account", "/v1/accounts"))],
  ["GET", /^\/v1\/accounts\/([^/]+)$/, platformOnly((ctx) => ctx.state.get(null, ctx.ids[0]!, "account", "account"))],
  [
    "POST",
    /^\/v1\/accounts\/([^/]+)$/,
    platformOnly((ctx) => update(ctx.state.get(null, ctx.ids[0]!, "account", "account"), ctx.p, { email: "string" })),
  ],
  ["POST", /^\/v1\/account_links$/, platformOnly(createAccountLink)],

  ["POST", /^\/v1\/products$/, createProduct],
  ["GET", /^\/v1\/products$/, listOf("product", "/v1/products", ["active"])],
  ["GET", /^\/v1\/products\/([^/]+)$/, retrieve("product")],
  ["POST", /^\/v1\/products\/([^/]+)$/, updatable("product", { name: "string", description: "string", active: "boolean", default_price: "string" })],
  ["DELETE", /^\/v1\/products\/([^/]+)$/, (ctx) => deleted(ctx.state.get(ctx.account, ctx.ids[0]!, "product"))],
  ["POST", /^\/v1\/prices$/, createPrice],
  ["GET", /^\/v1\/prices$/, listPrices],
  ["GET", /^\/v1\/prices\/([^/]+)$/, retrieve("price")],
  ["POST", /^\/v1\/prices\/([^/]+)$/, updatable("price", { active: "boolean", nickname: "string", lookup_key: "string" })],
  ["POST", /^\/v1\/customers$/, createCustomer],
  ["GET", /^\/v1\/customers$/, listOf("customer", "/v1/customers", ["email", "test_clock"])],
  ["GET", /^\/v1\/customers\/([^/]+)$/, retrieve("customer")],
  ["POST", /^\/v1\/customers\/([^/]+)$/, updatable("customer", { email: "string", name: "string", description: "string" })],
  ["DELETE", /^\/v1\/customers\/([^/]+)$/, (ctx) => deleted(ctx.state.get(ctx.account, ctx.ids[0]!, "customer"))],
  ["POST", /^\/v1\/coupons$/, createCoupon],
  ["GET", /^\/v1\/coupons$/, listOf("coupon", "/v1/coupons")],
  ["GET", /^\/v1\/coupons\/([^/]+)$/, retrieve("coupon")],
  [
    "DELETE",
    /^\/v1\/coupons\/([^/]+)$/,
    (ctx) => {
      const coupon = ctx.state.get(ctx.account, ctx.ids[0]!, "coupon");
      coupon.valid = false;
      return deleted(coupon);
    },
  ],
  ["POST", /^\/v1\/promotion_codes$/, createPromotionCode],
  ["GET", /^\/v1\/promotion_codes$/, listOf("promotion_code", "/v1/promotion_codes", ["code", "active", "customer"])],
  ["GET", /^\/v1\/promotion_codes\/([^/]+)$/, retrieve("promotion_code")],
  ["POST", /^\/v1\/promotion_codes\/([^/]+)$/, updatable("promotion_code", { active: "boolean" })],

  ["POST", /^\/v1\/checkout\/sessions$/, (ctx) => createSession(ctx.state, ctx.account, ctx.p, ctx.baseUrl)],
  [
    "GET",
    /^\/v1\/checkout\/sessions$/,
    listOf("checkout.session", "/v1/checkout/sessions", ["customer", "status", "subscription", "payment_intent"]),
  ],
  ["GET", /^\/v1\/checkout\/sessions\/([^/]+)$/, (ctx) => currentSession(ctx.state, ctx.account, ctx.ids[0]!)],
  ["GET", /^\/v1\/checkout\/sessions\/([^/]+)\/line_items$/, (ctx) => lineItems(ctx.state, currentSession(ctx.state, ctx.account, ctx.ids[0]!))],
  [
    "POST",
    /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/,
    (ctx) => {
      const session = currentSession(ctx.state, ctx.account, ctx.ids[0]!);
      expireSession(ctx.state, ctx.account, session);
      return session;
    },
  ],

  ["GET", /^\/v1\/subscriptions$/, listOf("subscription", "/v1/subscriptions", ["customer", "status", "test_clock"])],
  ["GET", /^\/v1\/subscriptions\/([^/]+)$/, retrieve("subscription")],
  ["POST", /^\/v1\/subscriptions\/([^/]+)$/, updateSubscription],
  [
    "DELETE",
    /^\/v1\/subscriptions\/([^/]+)$/,
    (ctx) => {
      const sub = ctx.state.get(ctx.account, ctx.ids[0]!, "subscription", "subscription");
      cancelSubscription(ctx.state, ctx.account, sub, "cancellation_requested", ctx.state.now(sub.test_clock as string | null));
      return sub;
    },
  ],
  ["GET", /^\/v1\/invoices$/, listOf("invoice", "/v1/invoices", ["customer", "status"])],
  ["GET", /^\/v1\/invoices\/([^/]+)$/, retrieve("invoice")],
  ["GET", /^\/v1\/payment_intents\/([^/]+)$/, retrieve("payment_intent")],
  ["GET", /^\/v1\/payment_intents$/, listOf("payment_intent", "/v1/payment_intents", ["customer"])],
  ["GET", /^\/v1\/charges\/([^/]+)$/, retrieve("charge")],
  ["GET", /^\/v1\/charges$/, listOf("charge", "/v1/charges", ["customer", "payment_intent"])],
  ["GET", /^\/v1\/payment_methods\/([^/]+)$/, retrieve("payment_method")],
  ["GET", /^\/v1\/balance_transactions\/([^/]+)$/, retrieve("balance_transaction")],
  ["POST", /^\/v1\/refunds$/, createRefund],
  ["GET", /^\/v1\/refunds$/, listOf("refund", "/v1/refunds", ["charge", "payment_intent"])],
  ["GET", /^\/v1\/refunds\/([^/]+)$/, retrieve("refund")],
  ["GET", /^\/v1\/disputes$/, listOf("dispute", "/v1/disputes", ["charge", "payment_intent"])],
  ["GET", /^\/v1\/disputes\/([^/]+)$/, retrieve("dispute")],
  ["POST", /^\/v1\/disputes\/([^/]+)$/, updateDispute],
  // Accepting a dispute (closing it) concedes it: lost at once.
  [
    "POST",
    /^\/v1\/disputes\/([^/]+)\/close$/,
    (ctx) => closeDispute(ctx.state, ctx.account, ctx.state.get(ctx.account, ctx.ids[0]!, "dispute", "dispute"), "lost", ctx.state.wallNow()),
  ],
  ["POST", /^\/v1\/test_helpers\/disputes$/, createDispute],

  ["POST", /^\/v1\/webhook_endpoints$/, platformOnly(createEndpoint)],
  [
    "GET",
    /^\/v1\/webhook_endpoints$/,
    platformOnly((ctx) =>
      list(
        ctx,
        ctx.state.all(null, "webhook_endpoint").map((e) => endpointObject(ctx.state, e.id)),
        "/v1/webhook_endpoints",
      ),
    ),
  ],
  [
    "GET",
    /^\/v1\/webhook_endpoints\/([^/]+)$/,
    platformOnly((ctx) => endpointObject(ctx.state, ctx.state.get(null, ctx.ids[0]!, "webhook_endpoint").id)),
  ],
  ["POST", /^\/v1\/webhook_endpoints\/([^/]+)$/, platformOnly(updateEndpoint)],
  [
    "DELETE",
    /^\/v1\/webhook_endpoints\/([^/]+)$/,
    platformOnly((ctx) => {
      const endpoint = ctx.state.get(null, ctx.ids[0]!, "webhook_endpoint");
      ctx.state.endpoints.delete(endpoint.id);
      ctx.state.forget(endpoint.id);
      return deleted(endpoint);
    }),
  ],
  [
    "GET",
    /^\/v1\/events$/,
    (ctx) => {
      const types = ctx.p.has("type") ? [ctx.p.string("type")!] : ctx.p.strings("types");
      const events = ctx.state
        .all(ctx.account, "event")
        .filter((e) => types.length === 0 || types.some((t) => (t.endsWith(".*") ? String(e.type).startsWith(t.slice(0, -1)) : e.type === t)));
      return list(ctx, createdRange(ctx, events), "/v1/events");
    },
  ],
  ["GET", /^\/v1\/events\/([^/]+)$/, retrieve("event")],

  ["POST", /^\/v1\/test_helpers\/test_clocks$/, createClock],
  ["GET", /^\/v1\/test_helpers\/test_clocks$/, listOf("test_helpers.test_clock", "/v1/test_helpers/test_clocks")],
  ["GET", /^\/v1\/test_helpers\/test_clocks\/([^/]+)$/, retrieve("test_helpers.test_clock")],
  ["POST", /^\/v1\/test_helpers\/test_clocks\/([^/]+)\/advance$/, advanceClock],
  ["DELETE", /^\/v1\/test_helpers\/test_clocks\/([^/]+)$/, (ctx) => deleted(ctx.state.get(ctx.account, ctx.ids[0]!, "test_helpers.test_clock"))],
];

/** Replaces the ids named by `expand[]` (`customer`, `subscription.latest_invoice`, `data.customer` on lists) by their objects. */
