// A member pays for a plan from the portal (issue 33): POST /<handle>/plans/<plan>/checkout (CSRF,
// the signed-in member, a budget per member and per address) starts the provider's hosted checkout
// (payments/member-checkout.ts) and sends the browser there (303 to the address the provider's API
// answered); a refused coupon is shown in the plan's form. GET /<handle>/checkout/<id> is where the
// provider sends the member back: it waits a few seconds for the provider's report (which usually
// arrives as the member is redirected) and shows the subscription, or why it did not start, or that
// the confirmation has not arrived yet with a "Check again" button. The page never reloads itself:
// a timed refresh takes the page away from someone reading it (WCAG 2.2.1; axe-core's meta-refresh).
import type Koa from "koa";
import { html, type Html } from "../auth/pages/html.ts";
import { readPageForm } from "../auth/pages/forms.ts";
import { PageError } from "../auth/pages/page-error.ts";
import { ApiError } from "../../errors.ts";
import { UUID } from "../../uuid.ts";
import { type RequestState, clientNetworkOf } from "../../http/request.ts";
import { consumeBudget, type Window } from "../../pipeline/rate-limit.ts";
import { price, refusalText } from "../../modules/connectors/bot/start.ts";
import { passRefusalText } from "../../modules/pass-windows/seats.ts";
import { CheckoutRefused, startMemberCheckout } from "../../modules/payments/member-checkout.ts";
import { providerRegistry } from "../../modules/payments/providers.ts";
import { checkoutsTable, type CheckoutRow } from "../../modules/payments/tables.ts";
import { plansTable, type PlanRow } from "../../modules/plans/tables.ts";
import type { PortalProject } from "../../modules/projects/handles.ts";
import { subscriptionsTable, type SubscriptionRow } from "../../modules/subscriptions/tables.ts";
import { currentMember } from "./account-page.ts";
import { connectedInstallations, portalContext } from "./catalog.ts";
import type { PortalDeps } from "./deps.ts";
import { portalNotice, portalPath, renderPortalPage } from "./layout.ts";
import { memberName, openCommunity, renderProjectPage, signInAnchor } from "./project-page.ts";

const requestId = (ctx: Koa.Context) => (ctx.state as RequestState).requestId ?? null;

/**
 * Checkout starts a member may make: each makes a provider session (and a checkout row), so a
 * script cannot make thousands. Ten in ten minutes covers a few coupon typos and second thoughts.
 */
export const CHECKOUT_MEMBER_BUDGET: readonly Window[] = [
  { name: "portal-checkout-member-10min", limit: 10, windowMs: 600_000 },
  { name: "portal-checkout-member-day", limit: 40, windowMs: 86_400_000 },
];
/** Checkout starts from one address (IPv4 or IPv6 /64), whoever is signed in: a household or an office pays now and then. */
export const CHECKOUT_NETWORK_BUDGET: readonly Window[] = [{ name: "portal-checkout-network-hour", limit: 30, windowMs: 3_600_000 }];

async function spendCheckoutBudget(ctx: Koa.Context, deps: PortalDeps, memberId: string): Promise<void> {
  const now = deps.now().getTime();
  const network = clientNetworkOf(ctx);
  const member = await consumeBudget(deps.kv, `portal-checkout-member:${memberId}`, CHECKOUT_MEMBER_BUDGET, now);
  const address = await consumeBudget(deps.kv, `portal-checkout-network:${network}`, CHECKOUT_NETWORK_BUDGET, now);
  const wait = Math.max(member.retryAfter ?? 0, address.retryAfter ?? 0);
  if (member.retryAfter !== null || address.retryAfter !== null)
    throw new PageError(429, `Too many checkouts started. Wait ${wait} seconds, then try again. Nothing was charged.`, {
      "Retry-After": String(wait),
    });
}

/** What the plan's page says of a payment method field that names no payment method. */
export const PAYMENT_METHOD_UNREADABLE = "The form named no way to pay that this community offers: choose Pay by card on the plan again.";

/** The portal's page for `checkout` (the provider's success_url). */
const checkoutUrl = (deps: PortalDeps, project: PortalProject, checkoutId: string) =>
  `${deps.portalUrl.replace(/\/+$/, "")}${portalPath(project.handle, `/checkout/${checkoutId}`)}`;

export async function startPlanCheckout(ctx: Koa.Context, deps: PortalDeps, project: PortalProject): Promise<void> {
  const { fields } = await readPageForm(ctx);
  const planId = String(ctx.params.plan ?? "").toLowerCase();
  if (!UUID.test(planId)) throw new PageError(404, "That plan is not on sale any more.");
  const member = await currentMember(ctx, deps, project);
  if (!member) {
    ctx.status = 303;
    return ctx.redirect(signInAnchor(project.handle, planId));
  }
  const domain = portalContext(deps, project, requestId(ctx));
  const methodId = String(fields.method ?? "").toLowerCase();
  // The form's method is a payment method's id; anything else never reaches a query (its uuid cast answered 500).
  if (!UUID.test(methodId))
    return renderProjectPage(ctx, deps, domain, project, { member, status: 422, alert: `${PAYMENT_METHOD_UNREADABLE} Nothing was charged.` });
  await spendCheckoutBudget(ctx, deps, member.id);
  const couponCode = (fields.coupon ?? "").slice(0, 64);
  // A window's id, or none: anything else is no window of the plan (404 before any query casts it).
  const passWindow = String(fields.pass_window ?? "").toLowerCase();
  if (passWindow !== "" && !UUID.test(passWindow))
    return renderProjectPage(ctx, deps, domain, project, { member, status: 404, alert: "That date is not sold for this plan. Nothing was charged." });
  const registry = providerRegistry({
    db: deps.db,
    stripe: deps.stripe?.client ?? null,
    connectors: { platforms: deps.platforms, appKey: deps.appKey },
  });
  const base = deps.portalUrl.replace(/\/+$/, "");
  let started;
  try {
    started = await startMemberCheckout(
      { db: deps.db, registry, logger: deps.logger, now: deps.now },
      {
        actor: domain.actor,
        projectId: project.id,
        member,
        planId,
        methodId,
        couponCode,
        passWindowId: passWindow === "" ? null : passWindow,
        returnUrls: (checkoutId) => ({
          successUrl: checkoutUrl(deps, project, checkoutId),
          cancelUrl: `${base}${portalPath(project.handle)}?plan=${planId}`,
        }),
      },
    );
  } catch (err) {
    if (err instanceof CheckoutRefused && err.field === "coupon")
      return renderProjectPage(ctx, deps, domain, project, { member, status: 422, couponProblem: { planId, code: couponCode, reason: err.message } });
    if (err instanceof CheckoutRefused) throw new PageError(err.status, err.message);
    const seat = err instanceof ApiError ? passRefusalText(err) : null;
    if (seat) return renderProjectPage(ctx, deps, domain, project, { member, status: (err as ApiError).status, alert: seat });
    const text = err instanceof ApiError ? refusalText(err) : null;
    if (!text) throw err;
    const alreadyIn = (err as ApiError).code === "SUBSCRIPTION_ALREADY_ACTIVE";
    throw new PageError(alreadyIn ? 409 : 403, alreadyIn ? `${text} Nothing was charged; your account page shows your membership.` : text);
  }
  ctx.status = 303;
  ctx.redirect(started.url);
}

/** How long the page a member comes back to waits for the provider's report, and how often it looks. */
export const CONFIRM_WAIT_MS = 8_000;
const CONFIRM_POLL_MS = 250;

/** `checkout` once it is no longer open, or as it is after `waitMs` (a bounded wait, read again every quarter second). */
async function settled(domain: ReturnType<typeof portalContext>, checkout: CheckoutRow, waitMs: number): Promise<CheckoutRow> {
  const until = Date.now() + waitMs;
  let current = checkout;
  while (current.status === "open" && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(CONFIRM_POLL_MS, Math.max(0, until - Date.now()))));
    current = ((await checkoutsTable.rows(domain).where({ id: checkout.id }).first()) as CheckoutRow | undefined) ?? current;
  }
  return current;
}

const NOTHING_HERE =
  "There is nothing to show at this address. If you just paid, sign in on the community's page: your account shows your membership once the payment is confirmed.";

const day = (d: Date | null) => (d ? new Date(d).toISOString().slice(0, 10) : null);

/** The subscription in words: the plan, until when, and what is charged next. */
function subscriptionSummary(subscription: SubscriptionRow, plan: PlanRow): Html {
  const next = subscription.pass_window_id
    ? html`None: one payment for a pass whose access ends <strong>${day(subscription.ends_at)}</strong>.`
    : plan.billing_cycle === "lifetime"
      ? html`None: one payment, access for life.`
      : subscription.status === "trialing"
        ? html`Your free trial runs until <strong>${day(subscription.trial_ends_at)}</strong>; then ${price(plan)}, first charged that day.`
        : subscription.status === "canceled"
          ? html`None: cancelled, access until <strong>${day(subscription.ends_at)}</strong>.`
          : html`${price(plan)}, from <strong>${day(subscription.ends_at)}</strong> until you cancel.`;
  return html`<dl class="summary">
    <dt>Plan</dt>
    <dd>${plan.name}</dd>
    ${
      subscription.ends_at && plan.billing_cycle !== "lifetime" && !subscription.pass_window_id
        ? html`<dt>Current period ends</dt>
            <dd>${day(subscription.ends_at)}</dd>`
        : ""
    }
    <dt>Next charge</dt>
    <dd>${next}</dd>
  </dl>`;
}

export async function showCheckout(ctx: Koa.Context, deps: PortalDeps, project: PortalProject): Promise<void> {
  const id = String(ctx.params.id ?? "").toLowerCase();
  const member = UUID.test(id) ? await currentMember(ctx, deps, project) : null;
  const domain = portalContext(deps, project, requestId(ctx));
  const found = member
    ? ((await checkoutsTable.rows(domain).where({ id, project_id: project.id, member_id: member.id }).first()) as CheckoutRow | undefined)
    : undefined;
  // Another member, nobody signed in, or no such checkout: the same page, which says nothing of it.
  if (!member || !found) throw new PageError(404, NOTHING_HERE);
  const checkout = await settled(domain, found, deps.confirmWaitMs ?? CONFIRM_WAIT_MS);
  const plan = (await plansTable.rows(domain).where({ id: checkout.plan_id }).first()) as PlanRow;
  const frame = { project, member: { name: memberName(member) } };
  const back = html`<p><a href="${portalPath(project.handle)}?plan=${plan.id}">Back to ${plan.name}</a></p>`;
  if (checkout.status === "open") {
    const self = portalPath(project.handle, `/checkout/${checkout.id}`);
    return renderPortalPage(ctx, {
      ...frame,
      title: "Confirming your payment",
      body: html`<h1>Confirming your payment</h1>
        ${portalNotice(
          "info",
          html`The confirmation of your payment for <strong>${plan.name}</strong> has not arrived yet. It usually takes a few seconds, sometimes a few
            minutes; if you did not finish paying, nothing was charged.`,
        )}
        <p><a class="button" href="${self}">Check again</a></p>
        ${back}`,
    });
  }
  if (checkout.status === "completed" && checkout.subscription_id) {
    const subscription = (await subscriptionsTable.rows(domain).where({ id: checkout.subscription_id }).first()) as SubscriptionRow | undefined;
    const installations = await connectedInstallations(domain, deps.connectors, project.id, deps.platforms);
    return renderPortalPage(ctx, {
      ...frame,
      title: "You're in",
      body: html`<h1>You're in</h1>
        ${portalNotice("success", html`Your payment is confirmed: welcome to <strong>${project.name}</strong>.`)}
        ${subscription ? subscriptionSummary(subscription, plan) : ""} ${openCommunity(project, installations)}
        <p><a href="${portalPath(project.handle, "/account")}">Your subscriptions and access</a></p>`,
    });
  }
  const why =
    checkout.status === "expired"
      ? "This checkout expired before a payment arrived. Nothing was charged; start again from the plan."
      : checkout.status === "superseded" && checkout.pass_window_id
        ? "This payment arrived after the date's last seat was taken or the date had ended, so it bought no pass: it is refunded."
        : checkout.status === "superseded"
          ? "This payment arrived while you already had a membership here, so it did not start another one: it is refunded."
          : "This checkout did not complete.";
  renderPortalPage(ctx, {
    ...frame,
    title: checkout.status === "expired" ? "Checkout expired" : "Not completed",
    body: html`<h1>${checkout.status === "expired" ? "Checkout expired" : "Not completed"}</h1>
      ${portalNotice("info", why)} ${back}`,
  });
}
