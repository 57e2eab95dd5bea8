// The billing page (/billing?team=<id>): the creator's own tier (Free, Starter, Growth), billed
// through Stripe on the operator's platform account. The tier is the team owner's, so only a
// team's owner sees the page for it (403 otherwise). It shows the tier, its price and the next
// renewal or end, and offers: "Upgrade" (a hosted Stripe Checkout, subscription mode, for the
// creator's remembered Stripe customer), "Change plan" between paid tiers (the prorated difference
// is charged at once and the change applies only if paid), "Cancel" at period end and "Keep" to
// withdraw it. /billing/return is where Checkout sends the creator back. Every change is a
// CSRF-checked POST; the tier itself changes from what Stripe reports (tier-subscription.ts).
import type { Router } from "@koa/router";
import type Koa from "koa";
import Stripe from "stripe";
import type { AuthDeps } from "../deps.ts";
import { unscoped } from "../../../db/tenant.ts";
import { isPaidTier, TIER_NAMES, TIER_PRICES, tierPriceText, type PaidTier } from "../../../modules/billing/prices.ts";
import {
  billingOf,
  changeTier,
  scheduleTierCancellation,
  startTierCheckout,
  subscriptionLive,
  syncTierSubscription,
  type BillingRow,
  type BillingStripe,
} from "../../../modules/billing/tier-subscription.ts";
import { TIERS, type Tier } from "../../../modules/teams/tier.ts";
import { requireCreator, type SignedIn } from "./creator.ts";
import { csrfField } from "./csrf.ts";
import { readPageForm } from "./forms.ts";
import { html } from "./html.ts";
import { notice, renderPage } from "./layout.ts";
import { PageError } from "./page-error.ts";
import { pageRoute } from "./page-route.ts";

/** Messages after a change, by a fixed key (nothing from the address is echoed). */
const DONE: Record<string, string> = {
  paid: "Payment received. Your new tier applies as soon as Stripe confirms it (usually at once).",
  changed: "Your plan was changed and the difference for this period charged.",
  cancelled: "Your plan is cancelled: it stays until the end of the period you paid, then you are on Free.",
  kept: "Your plan is no longer cancelled: it renews as before.",
  "checkout-left": "You left the payment page; nothing was charged.",
};

const day = (value: Date | null) => (value ? new Date(value).toISOString().slice(0, 10) : "");

/** The team the page is about, which the signed-in creator must own (the tier is the owner's). */
async function ownedTeam(deps: AuthDeps, creator: SignedIn, teamId: unknown): Promise<{ id: string; name: string }> {
  const team = creator.teams.find((t) => t.id === (typeof teamId === "string" && teamId ? teamId : creator.teamId));
  if (!team) throw new PageError(404, "You do not own or belong to that team. Choose one of your teams.");
  const row = (await unscoped(deps.db, "a team's owner decides who sees its billing")("teams").where({ id: team.id }).first("owner_user_id")) as {
    owner_user_id: string;
  };
  if (row.owner_user_id !== creator.userId)
    throw new PageError(403, `A team's tier is its owner's: only the owner of ${team.name} sees and changes its billing.`);
  return team;
}

function stripeOf(deps: AuthDeps): BillingStripe | null {
  return deps.stripe?.billing ? { client: deps.stripe.client, billing: deps.stripe.billing } : null;
}

/**
 * Where Checkout's hosted page is (the CSP form-action source the "Upgrade" form's redirect needs:
 * Chromium checks the redirect after a form): checkout.stripe.com for Stripe, else the
 * Stripe-compatible server itself (the twin serves its pages where it answers the API).
 */
function checkoutOrigin(client: Stripe): string {
  const host = String(client.getApiField("host"));
  if (host === "api.stripe.com") return "https://checkout.stripe.com";
  const port = client.getApiField("port");
  return `${String(client.getApiField("protocol"))}://${host}${port ? `:${String(port)}` : ""}`;
}

function requireStripe(deps: AuthDeps): BillingStripe {
  const stripe = stripeOf(deps);
  if (!stripe) throw new PageError(404, "This deployment bills no tiers: the operator sets them.");
  return stripe;
}

async function tierOf(deps: AuthDeps, userId: string): Promise<Tier> {
  const row = (await unscoped(deps.db, "the creator's own tier")("users").where({ id: userId }).first("tier")) as { tier: Tier };
  return row.tier;
}

function standing(tier: Tier, row: BillingRow | null) {
  if (!subscriptionLive(row))
    return tier === "free" ? html`<p>You are on Free.</p>` : html`<p>Your tier was set by the operator; it is not billed.</p>`;
  const price = tierPriceText(TIER_PRICES[row!.subscribed_tier!]);
  if (row!.subscription_status === "past_due")
    return html`<p>
      ${notice("error", `The last renewal could not be charged. Stripe retries your card; you keep ${TIER_NAMES[tier]} until ${day(row!.grace_ends_at)}, then you are on Free unless a retry pays.`)}
    </p>`;
  if (row!.cancel_at_period_end)
    return html`<p>Cancelled: ${TIER_NAMES[row!.subscribed_tier!]} (${price}) ends on ${day(row!.current_period_end)}, then you are on Free.</p>`;
  return html`<p>${TIER_NAMES[row!.subscribed_tier!]}, ${price}, renews on ${day(row!.current_period_end)}.</p>`;
}

function action(ctx: Koa.Context, team: string, tier: Tier, current: Tier, row: BillingRow | null) {
  const form = (path: string, label: string, kind = "") =>
    html`<form method="post" action="${path}">
      ${csrfField(ctx)}<input
        type="hidden"
        name="team_id"
        value="${team}"
      />${isPaidTier(tier) ? html`<input type="hidden" name="tier" value="${tier}" />` : ""}
      <button type="submit" class="${kind}">${label}</button>
    </form>`;
  const live = subscriptionLive(row);
  if (!live) {
    if (tier === current) return html`<span class="badge">Current</span>`;
    const above = TIERS.indexOf(tier) > TIERS.indexOf(current);
    return above && isPaidTier(tier) ? form("/billing/checkout", `Upgrade to ${TIER_NAMES[tier]}`) : "";
  }
  if (tier === row!.subscribed_tier)
    return row!.cancel_at_period_end ? form("/billing/keep", `Keep ${TIER_NAMES[tier]}`) : html`<span class="badge">Current</span>`;
  if (tier === "free")
    return row!.cancel_at_period_end
      ? html`<span class="hint">From ${day(row!.current_period_end)}</span>`
      : form("/billing/cancel", "Cancel plan", "danger");
  return form("/billing/change", `Change plan to ${TIER_NAMES[tier]}`, "secondary");
}

async function showBillingPage(ctx: Koa.Context, deps: AuthDeps, creator: SignedIn, options: { error?: string; status?: number } = {}) {
  const team = await ownedTeam(deps, creator, ctx.query.team);
  const [tier, row] = await Promise.all([tierOf(deps, creator.userId), billingOf(deps.db, creator.userId)]);
  const owned = (await unscoped(
    deps.db,
    "the teams a creator's tier reaches",
  )("teams")
    .where({ owner_user_id: creator.userId })
    .orderBy("name")
    .select("name")) as {
    name: string;
  }[];
  const done = typeof ctx.query.done === "string" ? DONE[ctx.query.done] : undefined;
  const stripe = stripeOf(deps);
  renderPage(ctx, {
    title: "Billing",
    creator,
    status: options.status ?? 200,
    ...(stripe ? { formTargets: [checkoutOrigin(stripe.client)] } : {}),
    body: html`${done ? notice("success", done) : ""} ${options.error ? notice("error", options.error) : ""}
      <section aria-labelledby="tier-heading">
        <h2 id="tier-heading">Your tier: ${TIER_NAMES[tier]}</h2>
        ${standing(tier, row)}
        <p class="hint">Your tier applies to every team you own: ${owned.map((t) => t.name).join(", ")}.</p>
      </section>
      <section aria-labelledby="plans-heading">
        <h2 id="plans-heading">Plans</h2>
        ${stripe ? "" : notice("info", "This deployment bills no tiers: the operator sets them.")}
        <table class="plans">
          <thead>
            <tr>
              <th scope="col">Plan</th>
              <th scope="col">Price</th>
              <th scope="col"><span class="visually-hidden">Action</span></th>
            </tr>
          </thead>
          <tbody>
            ${TIERS.map(
              (t) =>
                html`<tr>
                  <th scope="row">${TIER_NAMES[t]}</th>
                  <td>${isPaidTier(t) ? tierPriceText(TIER_PRICES[t]) : "Free"}</td>
                  <td>${stripe ? action(ctx, team.id, t, tier, row) : t === tier ? html`<span class="badge">Current</span>` : ""}</td>
                </tr>`,
            )}
          </tbody>
        </table>
        <p class="hint">
          What each tier allows is on the pricing page. Payments are taken by Stripe; a plan change charges the difference for the rest of the period
          at once.
        </p>
      </section>`,
  });
}

/** The signed-in owner, their billing row and Stripe, for a POST; the tier field read when `withTier`. */
async function postContext(ctx: Koa.Context, deps: AuthDeps) {
  const creator = await requireCreator(ctx, deps.db);
  if (!creator) return null;
  const { fields } = await readPageForm(ctx);
  ctx.query = { team: fields.team_id ?? "" };
  const team = await ownedTeam(deps, creator, fields.team_id);
  const stripe = requireStripe(deps);
  const tier = fields.tier;
  return { creator, team, stripe, tier: isPaidTier(tier) ? tier : null, row: await billingOf(deps.db, creator.userId) };
}

const back = (team: string, done: string) => `/billing?team=${encodeURIComponent(team)}&done=${done}`;

export function mountBillingPages(router: Router, deps: AuthDeps): void {
  router.register(
    "/billing",
    ["GET"],
    pageRoute(async (ctx) => {
      const creator = await requireCreator(ctx, deps.db);
      if (creator) await showBillingPage(ctx, deps, creator);
    }),
  );

  router.register(
    "/billing/checkout",
    ["POST"],
    pageRoute(async (ctx) => {
      const c = await postContext(ctx, deps);
      if (!c) return;
      if (!c.tier) throw new PageError(400, "Choose Starter or Growth.");
      // A second subscription would bill twice: a paid creator changes plan instead.
      if (subscriptionLive(c.row))
        return showBillingPage(ctx, deps, c.creator, { status: 409, error: "You already pay for a plan: change it below instead." });
      const base = deps.authUrl.replace(/\/+$/, "");
      const url = await startTierCheckout(
        deps.db,
        c.stripe,
        { id: c.creator.userId, email: c.creator.email },
        c.tier,
        {
          success: `${base}/billing/return?team=${encodeURIComponent(c.team.id)}&session_id={CHECKOUT_SESSION_ID}`,
          cancel: `${base}${back(c.team.id, "checkout-left")}`,
        },
        deps.now(),
      );
      ctx.status = 303;
      ctx.redirect(url);
    }),
  );

  router.register(
    "/billing/return",
    ["GET"],
    pageRoute(async (ctx) => {
      const creator = await requireCreator(ctx, deps.db);
      if (!creator) return;
      const team = await ownedTeam(deps, creator, ctx.query.team);
      const stripe = requireStripe(deps);
      const sessionId = typeof ctx.query.session_id === "string" ? ctx.query.session_id : "";
      if (!/^cs_[A-Za-z0-9_]+$/.test(sessionId)) throw new PageError(400, "This address names no checkout. Open the billing page again.");
      let session: Stripe.Checkout.Session;
      try {
        session = await stripe.client.checkout.sessions.retrieve(sessionId);
      } catch (err) {
        if (err instanceof Stripe.errors.StripeInvalidRequestError) throw new PageError(404, "That checkout does not exist.");
        throw err;
      }
      if (session.client_reference_id !== creator.userId) throw new PageError(404, "That checkout is not yours.");
      // The webhook may not have arrived yet: the same re-read applies the paid subscription now.
      if (session.status === "complete" && typeof session.subscription === "string" && typeof session.customer === "string")
        await syncTierSubscription(deps.db, stripe, session.customer, session.subscription, deps.now());
      ctx.redirect(back(team.id, session.status === "complete" ? "paid" : "checkout-left"));
    }),
  );

  router.register(
    "/billing/change",
    ["POST"],
    pageRoute(async (ctx) => {
      const c = await postContext(ctx, deps);
      if (!c) return;
      if (!c.tier) throw new PageError(400, "Choose Starter or Growth.");
      if (!subscriptionLive(c.row)) return showBillingPage(ctx, deps, c.creator, { status: 409, error: "You pay for no plan yet: upgrade below." });
      if (c.row!.subscribed_tier === c.tier) return ctx.redirect(back(c.team.id, "changed"));
      try {
        await changeTier(deps.db, c.stripe, c.row!, c.tier as PaidTier, deps.now());
      } catch (err) {
        if (err instanceof Stripe.errors.StripeCardError)
          return showBillingPage(ctx, deps, c.creator, { status: 402, error: `Your card was declined (${err.message}). Nothing changed.` });
        throw err;
      }
      ctx.redirect(back(c.team.id, "changed"));
    }),
  );

  for (const [path, cancel, done] of [
    ["/billing/cancel", true, "cancelled"],
    ["/billing/keep", false, "kept"],
  ] as const) {
    router.register(
      path,
      ["POST"],
      pageRoute(async (ctx) => {
        const c = await postContext(ctx, deps);
        if (!c) return;
        if (!subscriptionLive(c.row)) return showBillingPage(ctx, deps, c.creator, { status: 409, error: "You pay for no plan." });
        await scheduleTierCancellation(deps.db, c.stripe, c.row!, cancel, deps.now());
        ctx.redirect(back(c.team.id, done));
      }),
    );
  }
}
