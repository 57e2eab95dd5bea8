// A local Stripe for tests and an embedded start: the official `stripe` client is pointed at it
// with `{host, port, protocol: "http"}` and the twin's secret key, and it answers the calls of
// Stripe Connect, Checkout, Billing and webhooks in Stripe's wire format (form-encoded requests,
// JSON objects, `{error: {type, code, message, param}}`, Idempotency-Key replays, Stripe-Account
// for connected accounts). Its hosted pages (/c/pay/<session>, /setup/e/<account>/<token>) are
// completed in a browser; each call, event and webhook delivery is recorded for assertions.
// Described in docs/decisions.md ("Stripe twin").
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { listenPreferring, refusedForeignHost } from "../loopback.ts";
import { openStateFile, type StateFile } from "../state-file.ts";
import { failNextPayment, runDue } from "./billing.ts";
import { completeSession, currentSession, type CheckoutEntry } from "./checkout.ts";
import { invalidRequest, Params, StripeApiError } from "./errors.ts";
import { decodeForm } from "./form.ts";
import { checkoutPage, closedPage, messagePage, onboardingPage, pageCsp } from "./pages.ts";
import { closeDispute, openDispute, TEST_CARDS, type Card } from "./payments.ts";
import { completeOnboarding, expand, ROUTES } from "./resources.ts";
import { deauthorizeAccount } from "./accounts.ts";
import { TwinState, type Account, type StripeObject, type TwinSnapshot } from "./state.ts";
import type { Delivery } from "./webhooks.ts";
import { apiKey, expiry, masked, readBody, sendJson, sendPage } from "./wire.ts";

export { TEST_CARDS } from "./payments.ts";

export interface RecordedStripeCall {
  method: string;
  path: string;
  /** The Stripe-Account header: the connected account the call acts for, or null for the platform. */
  account: string | null;
  params: Record<string, unknown>;
  idempotencyKey: string | null;
  status: number;
}

export interface StripeTwin {
  url: string;
  host: string;
  port: number;
  protocol: "http";
  secretKey: string;
  /** The options that point the official client here: `new Stripe(twin.secretKey, twin.clientOptions)`. */
  clientOptions: { host: string; port: number; protocol: "http" };
  readonly calls: RecordedStripeCall[];
  /** Every event, oldest first. */
  readonly events: readonly StripeObject[];
  /** Every webhook delivery attempted, in order. */
  readonly deliveries: readonly Delivery[];
  /** The signing secret (whsec_) of a webhook endpoint. */
  webhookSecret(endpointId: string): string;
  /** Resolves once every webhook queued so far has been delivered (or failed). */
  settled(): Promise<void>;
  /** Moves the twin's clock on (objects outside a test clock) and runs the renewals and retries that fell due. */
  advanceClock(seconds: number): Promise<void>;
  /** Completes a checkout as the hosted page does; answers the URL the browser is sent to. */
  completeCheckout(sessionId: string, entry?: Omit<Partial<CheckoutEntry>, "card"> & { card?: string | Card }): Promise<string | null>;
  /** Completes a connected account's onboarding (account.updated). */
  completeOnboarding(accountId: string): Promise<StripeObject>;
  /**
   * The account's owner disconnects the platform (account.application.deauthorized); its calls are
   * refused from then on. `eventLost`: the event never reaches anyone (a test of the refusal alone).
   */
  deauthorize(accountId: string, options?: { eventLost?: boolean }): Promise<void>;
  /** The next renewal or retry of this subscription fails, whatever its card. */
  failNextPayment(subscriptionId: string): void;
  /** Disputes a charge (charge.dispute.created). */
  openDispute(chargeId: string, reason?: string): Promise<StripeObject>;
  /** Decides an open dispute as the card network would (charge.dispute.closed, status won or lost). */
  closeDispute(disputeId: string, outcome: "won" | "lost"): Promise<StripeObject>;
  close(): Promise<void>;
}

/** What the state file holds: the twin's state and the port it served, which a restart takes again when free. */
type TwinFile = { port: number; twin: TwinSnapshot };

export async function startStripeTwin(
  options: { secretKey?: string; merchantName?: string; stateFile?: string; port?: number | null } = {},
): Promise<StripeTwin> {
  let port = 0;
  const file: StateFile<TwinFile> | null = options.stateFile
    ? openStateFile<TwinFile>(options.stateFile, 1, () => ({ port, twin: state.snapshot() }))
    : null;
  const state: TwinState = file?.loaded ? TwinState.restore(file.loaded.twin) : new TwinState();
  const secretKey = options.secretKey ?? `sk_test_${randomBytes(24).toString("base64url").replace(/[-_]/g, "0")}`;
  const merchant = options.merchantName ?? "SubBridge";
  Object.assign(state.platform, {
    business_profile: { name: merchant, support_email: null, url: null },
    charges_enabled: true,
    country: "US",
    default_currency: "usd",
    details_submitted: true,
    payouts_enabled: true,
    type: "standard",
  });
  const calls: RecordedStripeCall[] = [];
  let baseUrl = "";

  async function api(req: IncomingMessage, res: ServerResponse, url: URL) {
    const method = req.method ?? "GET";
    const raw = method === "POST" ? await readBody(req) : url.search.slice(1);
    const accountHeader = req.headers["stripe-account"];
    const account: Account = typeof accountHeader === "string" && accountHeader ? accountHeader : null;
    const idempotencyKey = typeof req.headers["idempotency-key"] === "string" ? req.headers["idempotency-key"] : null;
    const call: RecordedStripeCall = { method, path: url.pathname, account, params: {}, idempotencyKey, status: 200 };
    calls.push(call);
    const answer = (status: number, body: unknown, headers?: Record<string, string>) => {
      call.status = status;
      sendJson(res, status, body, headers);
    };
    try {
      const key = apiKey(req);
      if (!key)
        throw new StripeApiError(
          401,
          "invalid_request_error",
          "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.",
        );
      if (key !== secretKey) throw new StripeApiError(401, "invalid_request_error", `Invalid API Key provided: ${masked(key)}`);
      if (account && !state.find(null, account, "account"))
        throw new StripeApiError(
          403,
          "invalid_request_error",
          `The provided key '${masked(key)}' does not have access to account '${account}' (or that account does not exist). Application access may have been revoked.`,
          "account_invalid",
        );
      const decoded = decodeForm(raw);
      if ("invalid" in decoded) throw invalidRequest(`Invalid parameter name: ${decoded.invalid}`, decoded.invalid);
      call.params = decoded.params;
      const replayKey = idempotencyKey && method === "POST" ? `${account ?? ""}|${idempotencyKey}` : null;
      const fingerprint = `${method} ${url.pathname} ${raw}`;
      const earlier = replayKey ? state.replays.get(replayKey) : undefined;
      if (earlier) {
        if (earlier.fingerprint !== fingerprint)
          throw new StripeApiError(
            400,
            "idempotency_error",
            `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
          );
        return answer(earlier.status, earlier.body, {
          "idempotent-replayed": "true",
          ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
        });
      }
      const route = ROUTES.find(([m, pattern]) => m === method && pattern.test(url.pathname));
      if (!route)
        throw new StripeApiError(
          404,
          "invalid_request_error",
          `Unrecognized request URL (${method}: ${url.pathname}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
        );
      const p = new Params(decoded.params);
      const ids = route[1]
        .exec(url.pathname)!
        .slice(1)
        .map((id) => {
          try {
            return decodeURIComponent(id);
          } catch {
            throw invalidRequest(`Invalid id in the URL: ${id}`);
          }
        });
      let status = 200;
      let body: unknown;
      try {
        body = expand(state, account, route[2]({ state, account, p, ids, baseUrl }), p.strings("expand"));
      } catch (error) {
        if (!(error instanceof StripeApiError)) throw error;
        status = error.status;
        body = error.body();
      }
      // Stripe saves a result only once the endpoint ran: a success or a card error, not a refused parameter.
      if (replayKey && (status < 400 || status === 402)) state.replays.set(replayKey, { fingerprint, status, body });
      return answer(status, body, idempotencyKey ? { "idempotency-key": idempotencyKey } : {});
    } catch (error) {
      if (error instanceof StripeApiError) return answer(error.status, error.body());
      return answer(500, { error: { type: "api_error", message: "An unknown error occurred in the Stripe twin." } });
    }
  }

  function complete(account: Account, session: StripeObject, entry: CheckoutEntry) {
    return completeSession(state, account, session, entry);
  }

  async function checkout(req: IncomingMessage, res: ServerResponse, id: string) {
    const found = state.locate(id);
    if (!found || found.object.object !== "checkout.session")
      return sendPage(res, 404, messagePage("Not found", "There is no checkout at this address."), pageCsp([]));
    const session = currentSession(state, found.account, id);
    const csp = pageCsp([session.success_url as string | null, session.cancel_url as string | null]);
    if (session.status !== "open") return sendPage(res, 410, closedPage(session), csp);
    const products = new Map(
      state.sessionLines
        .get(session.id)!
        .map((l) => [l.price.product as string, (state.find(found.account, l.price.product as string, "product")?.name as string) ?? ""]),
    );
    const merchantName = found.account
      ? ((state.find(null, found.account, "account")?.business_profile as { name: string | null })?.name ?? found.account)
      : merchant;
    const view = { session, lines: state.sessionLines.get(session.id)!, productNames: products, merchant: merchantName };
    if (req.method !== "POST") return sendPage(res, 200, checkoutPage(view), csp);
    const form = Object.fromEntries(new URLSearchParams(await readBody(req)));
    const values = {
      email: form.email ?? "",
      cardnumber: form.cardnumber ?? "",
      exp: form.exp ?? "",
      cvc: form.cvc ?? "",
      name: form.name ?? "",
      promotion_code: form.promotion_code ?? "",
    };
    const again = (status: number, message: string, field: string) =>
      sendPage(res, status, checkoutPage({ ...view, values, error: { message, field } }), csp);
    const number = values.cardnumber.replace(/[\s-]/g, "");
    const exp = expiry(values.exp);
    if (!number) return again(400, "Enter your card number.", "cardnumber");
    if (!exp) return again(400, "Enter the card's expiry as MM / YY.", "exp");
    if (!/^[0-9]{3,4}$/.test(values.cvc.trim())) return again(400, "Enter the 3 or 4 digit security code (CVC).", "cvc");
    try {
      const target = complete(found.account, session, {
        card: { number, expMonth: exp.month, expYear: exp.year },
        email: values.email,
        name: values.name,
        promotionCode: values.promotion_code || undefined,
      });
      if (target) return void res.writeHead(303, { location: target, "cache-control": "no-store" }).end();
      return sendPage(res, 200, messagePage("Payment complete", "Thank you: your payment went through."), csp);
    } catch (error) {
      if (!(error instanceof StripeApiError)) throw error;
      const field =
        error.param === "email"
          ? "email"
          : error.param === "promotion_code"
            ? "promotion_code"
            : error.code === "expired_card" || error.code === "invalid_expiry_month"
              ? "exp"
              : "cardnumber";
      return again(error.status, error.message, field);
    }
  }

  async function onboarding(req: IncomingMessage, res: ServerResponse, accountId: string, token: string) {
    const link = state.accountLinks.get(token);
    const account = link && link.account === accountId ? state.find(null, accountId, "account") : undefined;
    if (!link || !account) return sendPage(res, 404, messagePage("Link not found", "This onboarding link is not valid."), pageCsp([]));
    // Stripe sends an expired or already used link to refresh_url, where the platform makes a new one.
    if (link.used || state.wallNow() >= link.expiresAt) return void res.writeHead(303, { location: link.refreshUrl }).end();
    const csp = pageCsp([link.returnUrl, link.refreshUrl]);
    if (req.method !== "POST") return sendPage(res, 200, onboardingPage(account, merchant), csp);
    await readBody(req);
    link.used = true;
    completeOnboarding(state, accountId);
    res.writeHead(303, { location: link.returnUrl }).end();
  }

  const server = createServer((req, res) => {
    // The API's key and the hosted pages' secrets (the onboarding link's token) are for loopback callers only.
    if (refusedForeignHost(req, res)) return;
    const url = new URL(req.url ?? "/", "http://twin.invalid");
    void (async () => {
      if (url.pathname.startsWith("/v1/")) return api(req, res, url);
      const pay = /^\/c\/pay\/(cs_test_[A-Za-z0-9]+)$/.exec(url.pathname);
      if (pay && (req.method === "GET" || req.method === "POST")) return checkout(req, res, pay[1]!);
      const setup = /^\/setup\/e\/(acct_[A-Za-z0-9]+)\/([A-Za-z0-9_-]+)$/.exec(url.pathname);
      if (setup && (req.method === "GET" || req.method === "POST")) return onboarding(req, res, setup[1]!, setup[2]!);
      return sendJson(
        res,
        404,
        new StripeApiError(404, "invalid_request_error", `Unrecognized request URL (${req.method}: ${url.pathname}).`).body(),
      );
    })()
      .catch((error: unknown) => {
        if (res.headersSent) return void res.destroy();
        if (error instanceof StripeApiError) return sendJson(res, error.status, error.body());
        sendJson(res, 500, { error: { type: "api_error", message: "An unknown error occurred in the Stripe twin." } });
      })
      .finally(() => file?.changed());
  });
  // A restart serves where the last start did, so the URLs it handed out (an open checkout's page) still lead here.
  const configured = options.port ?? null;
  await listenPreferring(server, { host: "127.0.0.1", port: configured ?? file?.loaded?.port ?? 0, strict: configured !== null });
  server.unref();
  port = (server.address() as AddressInfo).port;
  baseUrl = `http://127.0.0.1:${port}`;
  /** Runs a control (a test's or a person's stand-in) and writes down what it changed. */
  const control = async <T>(work: () => T | Promise<T>): Promise<T> => {
    try {
      return await work();
    } finally {
      file?.changed();
    }
  };

  const locate = (id: string, kind: string) => {
    const found = state.locate(id);
    if (!found || found.object.object !== kind) throw new Error(`The Stripe twin has no ${kind} ${id}`);
    return found;
  };
  return {
    url: baseUrl,
    host: "127.0.0.1",
    port,
    protocol: "http",
    secretKey,
    clientOptions: { host: "127.0.0.1", port, protocol: "http" },
    calls,
    events: state.events,
    deliveries: state.webhooks.deliveries,
    webhookSecret(endpointId) {
      const endpoint = state.endpoints.get(endpointId);
      if (!endpoint) throw new Error(`The Stripe twin has no webhook endpoint ${endpointId}`);
      return endpoint.secret;
    },
    settled: () => state.webhooks.settled(),
    advanceClock: (seconds) =>
      control(async () => {
        state.advance(seconds);
        runDue(state, null);
        await state.webhooks.settled();
      }),
    completeCheckout: (sessionId, entry = {}) =>
      control(async () => {
        const { account } = locate(sessionId, "checkout.session");
        const session = currentSession(state, account, sessionId);
        const expiresAt = new Date((state.wallNow() + 2 * 365 * 86400) * 1000);
        const card: Card =
          entry.card !== undefined && typeof entry.card === "object"
            ? entry.card
            : {
                number: (entry.card as string | undefined) ?? TEST_CARDS.success,
                expMonth: expiresAt.getUTCMonth() + 1,
                expYear: expiresAt.getUTCFullYear(),
              };
        const target = complete(account, session, {
          email: entry.email ?? "member@example.com",
          name: entry.name,
          promotionCode: entry.promotionCode,
          card,
        });
        await state.webhooks.settled();
        return target;
      }),
    deauthorize: (accountId, options = {}) =>
      control(async () => {
        deauthorizeAccount(state, accountId, !options.eventLost);
        await state.webhooks.settled();
      }),
    completeOnboarding: (accountId) =>
      control(async () => {
        const account = completeOnboarding(state, accountId);
        await state.webhooks.settled();
        return account;
      }),
    failNextPayment: (subscriptionId) => {
      failNextPayment(state, locate(subscriptionId, "subscription").object.id);
      file?.changed();
    },
    openDispute: (chargeId, reason = "fraudulent") =>
      control(async () => {
        const { account, object } = locate(chargeId, "charge");
        const dispute = openDispute(state, account, object, reason, state.wallNow());
        await state.webhooks.settled();
        return dispute;
      }),
    closeDispute: (disputeId, outcome) =>
      control(async () => {
        const { account, object } = locate(disputeId, "dispute");
        const dispute = closeDispute(state, account, object, outcome, state.wallNow());
        await state.webhooks.settled();
        return dispute;
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }).finally(() => file?.flush()),
  };
}
