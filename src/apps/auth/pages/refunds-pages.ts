// A project's recent payments and the creator's refunds, under the payments page (issue 33: the
// API's payment:refund and payment:view-any are "Coming", so this page is where a creator gives
// money back). The list is the project's provider payments, newest first, 25 a page, with what was
// refunded already; "Refund" leads to a confirmation that says what happens to the member's access
// (a whole refund of the payment that pays the current period ends it now; otherwise it continues)
// before the POST asks the provider (src/modules/payments/creator-refund.ts). The abilities are the
// catalog's own: payment:view-any to see the list, payment:refund to refund, as a role or a group
// grants them (the owner and admins hold both; the member role only reads).
import type { Router } from "@koa/router";
import type Koa from "koa";
import type { AuthDeps } from "../deps.ts";
import { ApiError } from "../../../errors.ts";
import { allVisibleProjects } from "../../../modules/projects/projects.ts";
import { grantsAbility } from "../../../modules/roles/grants.ts";
import {
  formatMinor,
  minorDigits,
  parseDecimalMinor,
  recentPayments,
  refundablePayment,
  refundPayment,
  type PaymentView,
  type RefundablePayment,
} from "../../../modules/payments/creator-refund.ts";
import { surfaceRegistry } from "../../../modules/payments/providers.ts";
import { requireCreator, type SignedIn } from "./creator.ts";
import { csrfField } from "./csrf.ts";
import { readPageForm } from "./forms.ts";
import { html, type Html } from "./html.ts";
import { notice, renderPage } from "./layout.ts";
import { creatorActor, readAs, writeAs, type CreatorActor } from "./page-actor.ts";
import { PageError } from "./page-error.ts";
import { pageRoute } from "./page-route.ts";
import { asPageError, NOT_YOURS, placeOn, type Place } from "./payments-pages.ts";

const PROVIDER_NAMES: Record<string, string> = { stripe: "Stripe", telegram_stars: "Telegram Stars" };
const PAYMENT_GONE = "That payment is not one of this project's, or was not taken through a payment provider.";

const DONE: Record<string, { kind: "success" | "info"; text: string }> = {
  "stripe-refunded": {
    kind: "success",
    text: "Stripe is refunding the payment. It shows here as refunded once Stripe reports it, usually within seconds.",
  },
  "stars-refunded": { kind: "success", text: "The stars were given back to the member in Telegram." },
  "already-refunded": { kind: "info", text: "That payment was refunded already: nothing more was given back." },
};

type Acting = Place & { projectId: string; projectName: string; actor: CreatorActor; mayRefund: boolean };

/** The current team's project the address names, once the creator may see its payments (404 when not the team's, 403 without the ability). */
async function acting(ctx: Koa.Context, deps: AuthDeps, creator: SignedIn, ability: "payment:view-any" | "payment:refund"): Promise<Acting> {
  const place = await placeOn(deps, creator, creator.teamId);
  const actor = creatorActor(ctx, creator.userId, place.team.id);
  const projectId = ctx.params.project ?? "";
  const project = (await allVisibleProjects(readAs(deps, actor))).find((p) => p.id === projectId);
  if (!project) throw new PageError(404, NOT_YOURS);
  if (!grantsAbility(place.grants, ability, projectId))
    throw new PageError(403, `Your role on ${place.team.name} does not let you do this: it needs ${ability}.`);
  return { ...place, projectId, projectName: project.name, actor, mayRefund: grantsAbility(place.grants, "payment:refund", projectId) };
}

async function paymentOf(deps: AuthDeps, at: Acting, id: string): Promise<RefundablePayment> {
  const payment = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)
    ? await refundablePayment(readAs(deps, at.actor), at.projectId, id)
    : null;
  if (!payment) throw new PageError(404, PAYMENT_GONE);
  return payment;
}

function when(date: Date): Html {
  const iso = date.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace("T", " ")} UTC</time>`;
}

const base = (projectId: string) => `/payments/projects/${projectId}/payments`;

function paymentItem(at: Acting, p: PaymentView): Html {
  const refunded = p.refundedMinor >= p.amountMinor;
  const facts = [p.planName, PROVIDER_NAMES[p.provider] ?? p.provider].filter(Boolean).join(" · ");
  return html`<li class="payment" data-payment-id="${p.id}">
    <p>
      <strong>${p.memberName}</strong> paid <strong>${formatMinor(p.amountMinor, p.currency)}</strong> ${
        refunded
          ? html`<span class="badge">Refunded</span>`
          : p.refundedMinor
            ? html`<span class="badge">${formatMinor(p.refundedMinor, p.currency)} refunded</span>`
            : ""
      }<br />
      ${facts} · ${when(p.createdAt)}
    </p>
    ${
      at.mayRefund && !refunded
        ? html`<p class="actions field">
            <a href="${base(at.projectId)}/${p.id}/refund" aria-label="Refund ${p.memberName}'s payment of ${formatMinor(p.amountMinor, p.currency)}"
              >Refund</a
            >
          </p>`
        : ""
    }
  </li>`;
}

async function listPage(ctx: Koa.Context, deps: AuthDeps, creator: SignedIn): Promise<void> {
  const at = await acting(ctx, deps, creator, "payment:view-any");
  const page = /^[0-9]{1,6}$/.test(String(ctx.query.page ?? "")) ? Number(ctx.query.page) : 0;
  const { payments, more } = await recentPayments(readAs(deps, at.actor), at.projectId, page);
  const done = typeof ctx.query.done === "string" ? DONE[ctx.query.done] : undefined;
  const pager = [
    page > 0 ? html`<a href="${base(at.projectId)}${page > 1 ? `?page=${page - 1}` : ""}">Newer payments</a>` : "",
    more ? html`<a href="${base(at.projectId)}?page=${page + 1}">Older payments</a>` : "",
  ];
  renderPage(ctx, {
    title: "Payments and refunds",
    creator,
    body: html`${done ? notice(done.kind, done.text) : ""}
      <p><a href="/payments">Payments</a> › ${at.projectName}</p>
      <p>What members paid for ${at.projectName}'s plans through Stripe and Telegram Stars, newest first.</p>
      ${
        payments.length
          ? html`<ul class="plain payments">
              ${payments.map((p) => paymentItem(at, p))}
            </ul>`
          : html`<p>${page ? "No older payments." : "No member has paid through a payment provider yet."}</p>`
      }
      ${page > 0 || more ? html`<p class="actions">${pager}</p>` : ""}`,
  });
}

/** What a refund does to the member's access, said before the creator confirms it. */
function consequence(p: RefundablePayment): Html {
  const partial = p.provider === "stripe" ? html` A partial refund gives back part of the payment and leaves the member's access as it is.` : "";
  if (p.paysCurrentPeriod)
    return html`<p class="notice info" role="status">
      This payment pays for ${p.memberName}'s current period, so refunding all of it <strong>ends their access now</strong>.${partial}
    </p>`;
  return html`<p class="notice info" role="status">
    This payment does not pay for a current period of ${p.memberName}'s (a later payment does, or their subscription has ended), so their access
    continues as it is.
  </p>`;
}

function confirmationPage(ctx: Koa.Context, at: Acting, creator: SignedIn, p: RefundablePayment): void {
  const left = p.amountMinor - p.refundedMinor;
  const digits = minorDigits(p.currency);
  const amountField =
    p.provider === "stripe"
      ? html`<p class="field">
          <label for="amount">Amount to refund (${p.currency})</label>
          <span class="hint" id="amount-hint"
            >Leave empty to refund all that is left, ${formatMinor(left, p.currency)}; or a smaller
            amount${digits ? `, for example ${(left / 10 ** digits / 2).toFixed(digits)}` : ""}.</span
          >
          <input id="amount" name="amount" type="text" inputmode="decimal" autocomplete="off" aria-describedby="amount-hint" />
        </p>`
      : html`<p>Telegram refunds a Stars payment once and wholly: all ${formatMinor(p.amountMinor, p.currency)} go back to the member.</p>`;
  renderPage(ctx, {
    title: "Refund a payment",
    creator,
    body: html`<p><a href="${base(at.projectId)}">Payments of ${at.projectName}</a> › Refund</p>
      <p>
        <strong>${p.memberName}</strong> paid <strong>${formatMinor(p.amountMinor, p.currency)}</strong>
        ${p.planName ? html`for ${p.planName}` : ""} through ${PROVIDER_NAMES[p.provider] ?? p.provider} on ${when(p.createdAt)}.
        ${p.refundedMinor ? html`${formatMinor(p.refundedMinor, p.currency)} of it is refunded already.` : ""}
      </p>
      ${consequence(p)}
      <form method="post" action="${base(at.projectId)}/${p.id}/refund" class="stack">
        ${csrfField(ctx)} ${amountField}
        <div class="actions field">
          <button type="submit" class="danger">Refund</button>
          <a href="${base(at.projectId)}">Keep the payment</a>
        </div>
      </form>`,
  });
}

export function mountRefundPages(router: Router, deps: AuthDeps): void {
  router.register(
    "/payments/projects/:project/payments",
    ["GET"],
    pageRoute(async (ctx) => {
      const creator = await requireCreator(ctx, deps.db);
      if (creator) await listPage(ctx, deps, creator);
    }),
  );

  router.register(
    "/payments/projects/:project/payments/:payment/refund",
    ["GET"],
    pageRoute(async (ctx) => {
      const creator = await requireCreator(ctx, deps.db);
      if (!creator) return;
      const at = await acting(ctx, deps, creator, "payment:refund");
      const payment = await paymentOf(deps, at, ctx.params.payment ?? "");
      if (payment.refundedMinor >= payment.amountMinor) {
        ctx.status = 303;
        return ctx.redirect(`${base(at.projectId)}?done=already-refunded`);
      }
      confirmationPage(ctx, at, creator, payment);
    }),
  );

  router.register(
    "/payments/projects/:project/payments/:payment/refund",
    ["POST"],
    pageRoute(async (ctx) => {
      const { fields } = await readPageForm(ctx);
      const creator = await requireCreator(ctx, deps.db);
      if (!creator) return;
      const at = await acting(ctx, deps, creator, "payment:refund");
      const payment = await paymentOf(deps, at, ctx.params.payment ?? "");
      const typed = (fields.amount ?? "").trim();
      const amount = typed ? parseDecimalMinor(typed, payment.currency) : null;
      if (typed && amount === null)
        throw new PageError(
          422,
          `That was not done: the amount is a number in ${payment.currency} with at most ${minorDigits(payment.currency)} decimals.`,
        );
      const registry = surfaceRegistry({ db: deps.db, stripe: deps.stripe, platforms: deps.platforms, appKey: deps.appKey });
      let outcome;
      try {
        outcome = await refundPayment(readAs(deps, at.actor), { ...deps, registry, write: (work) => writeAs(deps, at.actor, work) }, payment, amount);
      } catch (err) {
        if (err instanceof ApiError && err.code === "SERVICE_BUSY") throw new PageError(503, err.message, err.headers);
        asPageError(err, PAYMENT_GONE);
      }
      ctx.status = 303;
      const done = outcome === "already_refunded" ? "already-refunded" : payment.provider === "stripe" ? "stripe-refunded" : "stars-refunded";
      ctx.redirect(`${base(at.projectId)}?done=${done}`);
    }),
  );
}
