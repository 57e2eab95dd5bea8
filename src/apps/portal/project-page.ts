// GET /<handle>: the project's public page - its plans (price, cycle, trial, what each grants, and
// how each can be bought: by card through the project's Stripe method, with an optional coupon, or
// with Telegram Stars through the bot's plan link; ?plan=<id> highlights one), the connectors'
// portal buttons through each installation's start link, access-code redemption, and the sign-in
// through a connector (which comes back to the plan picked). A plan with pass windows is bought by
// card for one of its windows (pass-window-picker.ts); Stars are not offered for it.
import type Koa from "koa";
import { html, type Html } from "../auth/pages/html.ts";
import { csrfField } from "../auth/pages/csrf.ts";
import { price } from "../../modules/connectors/bot/start.ts";
import type { MemberRow } from "../../modules/members/tables.ts";
import type { PortalProject } from "../../modules/projects/handles.ts";
import { enabledPaymentMethods, type PaymentMethod } from "../../modules/payment-methods/payment-methods.ts";
import { hadTrial } from "../../modules/payments/checkouts.ts";
import { methodsSelling } from "../../modules/payments/selling.ts";
import { checkoutOrigin } from "../../modules/payments/stripe/provider.ts";
import { driverFor } from "../../modules/connectors/drivers/index.ts";
import { platformEntryUrl } from "../../modules/connectors/platform-entry.ts";
import { windowsOnSale, type WindowOnSale } from "../../modules/pass-windows/seats.ts";
import { passWindowList, passWindowPicker } from "./pass-window-picker.ts";
import { connectedInstallations, publishedPlans, startLink, type PortalInstallation, type PortalPlan } from "./catalog.ts";
import type { DomainContext } from "../../db/tenant.ts";
import type { PortalDeps } from "./deps.ts";
import { portalNotice, portalPath, renderPortalPage } from "./layout.ts";

export const memberName = (member: MemberRow) => member.display_name ?? member.external_user_id ?? "Member";

/** How a plan can be bought here: by card (a Stripe method this deployment can reach) and/or Stars (through the Telegram bot). */
export interface PlanOffers {
  card: PaymentMethod | null;
  stars: PortalInstallation | null;
}

/** The offers for each plan, from the project's enabled methods that can sell it (the bot's rule, payments/selling.ts). */
function offersFor(
  deps: PortalDeps,
  plans: PortalPlan[],
  methods: PaymentMethod[],
  installations: PortalInstallation[],
  windows: Map<string, WindowOnSale[]>,
): Map<string, PlanOffers> {
  const telegram = installations.find((i) => i.installation.connector_key === "telegram") ?? null;
  return new Map(
    plans.map(({ plan }) => {
      const selling = methodsSelling(methods, plan);
      const passes = windows.get(plan.id);
      // A pass plan is on sale while one of its windows has a seat; the bot's plan link does not pick a window, so no Stars.
      const onSale = !passes || passes.some((w) => w.seatsLeft !== 0);
      // A Stripe method is only usable with this deployment's Stripe and the creator's connected account.
      const card = (onSale && deps.stripe && selling.find((m) => m.provider === "stripe" && m.has_credentials)) || null;
      const stars = !passes && telegram && selling.some((m) => m.provider === "telegram_stars") ? telegram : null;
      return [plan.id, { card, stars }];
    }),
  );
}

/** A coupon the member typed that was refused, shown in its plan's form. */
export interface CouponProblem {
  planId: string;
  code: string;
  reason: string;
}

export const signInAnchor = (handle: string, planId: string) => `${portalPath(handle)}?plan=${planId}#sign-in-heading`;

function payByCard(ctx: Koa.Context, handle: string, planId: string, method: PaymentMethod, view: CardView): Html {
  const field = `coupon-${planId}`;
  const { problem } = view;
  return html`<form method="post" action="${portalPath(handle, `/plans/${planId}/checkout`)}" class="pay-card">
    ${csrfField(ctx)}<input type="hidden" name="method" value="${method.id}" />
    ${view.windows ? passWindowPicker(planId, view.windows) : ""}
    <label for="${field}">Coupon code <span class="optional">(optional)</span></label>
    <input
      id="${field}"
      name="coupon"
      type="text"
      autocomplete="off"
      spellcheck="false"
      maxlength="64"
      value="${problem?.code ?? ""}"
      ${problem ? html`aria-invalid="true" aria-describedby="${field}-error"` : ""}
    />
    ${problem ? html`<p class="field-error" id="${field}-error" role="alert">${problem.reason}</p>` : ""}
    <button type="submit">Pay by card</button>
  </form>`;
}

function planCard(ctx: Koa.Context, handle: string, entry: PortalPlan, offers: PlanOffers, view: CardView): Html {
  const { plan, resources } = entry;
  const highlighted = view.highlighted;
  return html`<li class="plan${highlighted ? " highlighted" : ""}" id="plan-${plan.id}" ${highlighted ? html`aria-current="true"` : ""}>
    <h3>${plan.name}</h3>
    <p class="price">${price(plan)}</p>
    ${
      plan.trial_days > 0
        ? view.trialUsed
          ? html`<p class="trial">You have had this community's free trial: ${price(plan)}, paid from the first day</p>`
          : html`<p class="trial">${plan.trial_days}-day free trial, then ${price(plan)}</p>`
        : ""
    }
    ${plan.description ? html`<p>${plan.description}</p>` : ""}
    ${
      resources.length
        ? html`<p class="includes">Includes:</p>
            <ul class="resources">
              ${resources.map((r) => html`<li>${r.title}${r.label ? html` <span class="kind">${r.label}</span>` : ""}</li>`)}
            </ul>`
        : ""
    }
    ${view.windows && !(offers.card && view.signedIn) ? passWindowList(view.windows) : ""}
    <div class="pay">
      ${
        offers.card
          ? view.signedIn
            ? payByCard(ctx, handle, plan.id, offers.card, view)
            : html`<a class="button${highlighted ? "" : " secondary"}" href="${signInAnchor(handle, plan.id)}">Sign in to pay by card</a>`
          : ""
      }
      ${
        offers.stars
          ? html`<a class="button${highlighted ? "" : " secondary"}" href="${startLink(offers.stars.installation, plan.id)}"
                >Pay with Telegram Stars</a
              >
              <p class="hint">Telegram opens the invoice in the chat with the bot. Coupons apply to card payments only.</p>`
          : ""
      }
      ${!offers.card && !offers.stars ? html`<p class="hint">This plan cannot be bought online right now.</p>` : ""}
    </div>
  </li>`;
}

interface CardView {
  highlighted: boolean;
  signedIn: boolean;
  /** The signed-in member has had a trial in this project: a plan's trial is not offered again. */
  trialUsed: boolean;
  problem: CouponProblem | null;
  /** A pass plan's windows not yet ended; absent for a plan without windows. */
  windows?: WindowOnSale[];
}

function howToSubscribe(entry: PortalPlan, offers: PlanOffers, signedIn: boolean): Html {
  const ways = [offers.card ? "by card" : null, offers.stars ? "with Telegram Stars" : null].filter((w) => w !== null).join(" or ");
  const how = !ways
    ? html`It cannot be bought online right now; if you have an access code, redeem it below.`
    : offers.card && !signedIn
      ? html`Pay for it ${ways} below; to pay by card, sign in first and you come back to this plan.`
      : html`Pay for it ${ways} below.`;
  return portalNotice("info", html`You picked <strong>${entry.plan.name}</strong> (${price(entry.plan)}). ${how}`);
}

/** The connectors' portal buttons (the manifests' portal_cta), each through its installation's start link. */
export function openCommunity(project: PortalProject, installations: PortalInstallation[]): Html {
  const ctas = installations.filter((i) => i.cta);
  if (!ctas.length) return html``;
  return html`<section aria-labelledby="open-heading">
    <h2 id="open-heading">Open the community</h2>
    <div class="actions">
      ${ctas.map(
        (i) =>
          html`<a class="button cta cta-${i.installation.connector_key}" href="${startLink(i.installation, `project_${project.id}`)}">${i.cta}</a>`,
      )}
    </div>
  </section>`;
}

export function redeemForm(ctx: Koa.Context, handle: string): Html {
  return html`<form method="post" action="${portalPath(handle, "/redeem")}" class="redeem">
    ${csrfField(ctx)}
    <label for="access-code">Access code</label>
    <input id="access-code" name="code" type="text" autocomplete="off" spellcheck="false" required maxlength="64" />
    <button type="submit">Redeem</button>
  </form>`;
}

function signInForms(ctx: Koa.Context, deps: PortalDeps, handle: string, installations: PortalInstallation[], returnTo: string | null): Html {
  const usable = installations.filter((i) => i.signIn);
  if (!usable.length) return html`<p>Signing in is not available for this community yet.</p>`;
  return html`<p>Your membership is tied to your account on the community's platform. Confirm it there to sign in here.</p>
    <div class="actions">
      ${usable.map((i) =>
        // A platform with its own sign-in (Discord's OAuth) is left through a link: the portal's forms may only lead to the portal.
        driverFor(i.installation.connector_key, deps.platforms)?.signIn
          ? html`<a
              class="button"
              href="${platformEntryUrl(deps.portalUrl, i.installation)}${returnTo ? `?return_to=${encodeURIComponent(returnTo)}` : ""}"
              >Sign in with ${i.connectorName}</a
            >`
          : html`<form method="post" action="${portalPath(handle, "/sign-in")}">
              ${csrfField(ctx)}<input type="hidden" name="installation" value="${i.installation.id}" />
              ${returnTo ? html`<input type="hidden" name="return_to" value="${returnTo}" />` : ""}
              <button type="submit">Sign in with ${i.connectorName}</button>
            </form>`,
      )}
    </div>`;
}

export interface ProjectPageOptions {
  member: MemberRow | null;
  alert?: string;
  status?: number;
  /** A refused coupon, shown in its plan's card (the plan is highlighted). */
  couponProblem?: CouponProblem;
}

export async function renderProjectPage(
  ctx: Koa.Context,
  deps: PortalDeps,
  domain: DomainContext,
  project: PortalProject,
  options: ProjectPageOptions,
) {
  const [plans, installations, methods] = await Promise.all([
    publishedPlans(domain, deps.connectors, project.id),
    connectedInstallations(domain, deps.connectors, project.id, deps.platforms),
    enabledPaymentMethods(domain, project.id),
  ]);
  const wanted = options.couponProblem?.planId ?? (typeof ctx.query.plan === "string" ? ctx.query.plan.toLowerCase() : null);
  const picked = plans.find((p) => p.plan.id === wanted);
  const windows = await windowsOnSale(
    domain,
    plans.map((p) => p.plan.id),
    deps.now(),
  );
  const offers = offersFor(deps, plans, methods, installations, windows);
  const { member } = options;
  const trialUsed = member !== null && plans.some((p) => p.plan.trial_days > 0) && (await hadTrial(domain, project.id, member.id));
  const card = (p: PortalPlan) =>
    planCard(ctx, project.handle, p, offers.get(p.plan.id)!, {
      highlighted: p === picked,
      signedIn: member !== null,
      trialUsed,
      problem: options.couponProblem?.planId === p.plan.id ? options.couponProblem : null,
      ...(windows.has(p.plan.id) ? { windows: windows.get(p.plan.id)! } : {}),
    });
  const body = html`<h1>${project.name}</h1>
    ${project.description ? html`<p class="lead">${project.description}</p>` : ""}
    ${project.status === "archived" ? portalNotice("info", "This community is closed to new members.") : ""}
    ${options.alert ? portalNotice("error", options.alert) : ""}
    ${picked && !options.couponProblem ? howToSubscribe(picked, offers.get(picked.plan.id)!, member !== null) : ""}
    ${wanted && !picked ? portalNotice("info", "That plan is not on sale any more; here is what the community offers now.") : ""}
    <section aria-labelledby="plans-heading">
      <h2 id="plans-heading">Plans</h2>
      ${
        plans.length
          ? html`<ul class="plans">
              ${plans.map(card)}
            </ul>`
          : html`<p>No plans are on sale right now.</p>`
      }
    </section>
    ${openCommunity(project, installations)}
    <section aria-labelledby="code-heading">
      <h2 id="code-heading">Have an access code?</h2>
      ${member ? html`<p>Redeem it for your membership as ${memberName(member)}.</p>` : html`<p>Sign in first: the code is redeemed for your account.</p>`}
      ${redeemForm(ctx, project.handle)}
    </section>
    ${
      member
        ? html`<section aria-labelledby="account-heading">
            <h2 id="account-heading">Your membership</h2>
            <p><a href="${portalPath(project.handle, "/account")}">See your subscriptions and access</a></p>
          </section>`
        : html`<section aria-labelledby="sign-in-heading">
            <h2 id="sign-in-heading">Members</h2>
            ${signInForms(ctx, deps, project.handle, installations, picked ? `${portalPath(project.handle)}?plan=${picked.plan.id}` : null)}
          </section>`
    }
    ${
      project.terms_url || project.privacy_url
        ? html`<p class="legal">
            ${project.terms_url ? html`<a href="${project.terms_url}">Terms</a>` : ""}
            ${project.privacy_url ? html`<a href="${project.privacy_url}">Privacy</a>` : ""}
          </p>`
        : ""
    }`;
  const cardForms = member !== null && deps.stripe && [...offers.values()].some((o) => o.card);
  renderPortalPage(ctx, {
    title: picked ? picked.plan.name : "Plans",
    ...(cardForms ? { formTargets: [checkoutOrigin(deps.stripe!.client)] } : {}),
    body,
    project,
    ...(member ? { member: { name: memberName(member) } } : {}),
    ...(options.status ? { status: options.status } : {}),
  });
}
