// What a connector bot does when a member opens it with a start payload (description: "Start
// payload handling by the connector bot"). The payload is read by the SDK's readStartPayload, the
// one reader connector authors use too: `auth_<token>` (a portal sign-in handoff, or with a "c-"
// token a creator linking their account, identity-link.ts), `-<command>`
// (an admin command, effective only for a project admin), a bare UUID (a plan of the project, then
// an access code), anything else the home screen. There is no key=value syntax.
import { readStartPayload } from "@subbridge/sdk/connector";
import { ApiError } from "../../../errors.ts";
import { inTransaction, type DomainContext } from "../../../db/tenant.ts";
import { redeemAccessCode, type Redemption } from "../../access-codes/redeem.ts";
import { projectsTable } from "../../projects/projects.ts";
import { plansTable, type PlanRow } from "../../plans/tables.ts";
import { resourcesTable } from "../../resources/tables.ts";
import type { StartInput } from "./start-input.ts";
import { labelsById, runAdminCommand } from "./admin.ts";
import { linkCreatorAccount } from "./identity-link.ts";
import { isIdentityLinkToken } from "../../account/identity-links.ts";
import { proposeHandoff } from "../../portal/handoffs.ts";
import { findOrCreateMember, refuseBanned } from "../../members/members.ts";
import { membersTable, type MemberRow } from "../../members/tables.ts";
import { enabledPaymentMethods } from "../../payment-methods/payment-methods.ts";
import { openCheckout } from "../../payments/checkouts.ts";
import { methodsSelling } from "../../payments/selling.ts";
import type { CheckoutRow } from "../../payments/tables.ts";
import { refuseLiveSubscription } from "../../subscriptions/subscriptions.ts";

export { planPrice } from "../../payments/selling.ts";

export type StartOutcome =
  | { kind: "home" }
  | { kind: "plan"; planId: string }
  /** A Stars checkout opened in the transaction: the invoice is made after the commit (deliverStartReply). */
  | { kind: "checkout"; checkout: CheckoutRow; plan: PlanRow; method: { id: string; mode: "live" | "test" } }
  | { kind: "redeemed"; redemption: Redemption }
  | { kind: "refused"; code: string }
  | { kind: "command"; name: string; done: boolean }
  | { kind: "portal-sign-in"; proposed: boolean }
  | { kind: "identity-link"; linked: boolean };

export interface StartReply {
  outcome: StartOutcome;
  /** The message the bot sends back. */
  text: string;
}

/** A refusal a member can meet on redemption, in the words the bot (and the portal) uses; null for anything else. */
export function refusalText(err: ApiError): string | null {
  if (err.code === "ACCESS_CODE_EXPIRED") return "This access code has expired.";
  if (err.code === "ACCESS_CODE_ALREADY_REDEEMED") return "This access code has already been used.";
  if (err.code === "SUBSCRIPTION_ALREADY_ACTIVE") return "You already have an active membership here.";
  if (err.code === "VALIDATION_FAILED" && err.context?.reason === "member_banned") return "You cannot join this community.";
  return null;
}

async function portalOf(ctx: DomainContext, input: StartInput): Promise<string> {
  const project = (await projectsTable.rows(ctx).where({ id: input.installation.project_id }).first("handle", "name")) as { handle: string };
  return `${input.portalUrl.replace(/\/+$/, "")}/${project.handle}`;
}

/** A Stars price in words ("250 stars"). */
const inStars = (plan: PlanRow) => `${plan.amount_minor} ${Number(plan.amount_minor) === 1 ? "star" : "stars"}`;

/** A plan's price in words ("$5.00 every month", "250 stars once"), as the bot and the portal show it. */
export function price(plan: PlanRow): string {
  const count = plan.billing_cycle_count;
  const every = plan.billing_cycle === "lifetime" ? "once" : `every ${count > 1 ? `${count} ${plan.billing_cycle}s` : plan.billing_cycle}`;
  // XTR (Telegram Stars) is no ISO currency: Intl would show it as "XTR 2.50" for 250 whole stars.
  if (plan.currency === "XTR") return `${inStars(plan)} ${every}`;
  const format = new Intl.NumberFormat("en", { style: "currency", currency: plan.currency });
  return `${format.format(Number(plan.amount_minor) / 10 ** format.resolvedOptions().maximumFractionDigits!)} ${every}`;
}

/**
 * A published plan's bare UUID: an access-code-only plan points to its code; a member with a live
 * subscription (or banned) is told so; a plan the project sells in Telegram Stars through this bot
 * opens a checkout (a new one each time, closing the member's earlier one, whose invoice is then
 * declined at pre-checkout); anything else goes to the portal's plan page.
 */
async function planOffer(ctx: DomainContext, input: StartInput, plan: PlanRow): Promise<StartReply> {
  const portal = await portalOf(ctx, input);
  if (plan.access_codes_only) {
    const text = `${plan.name} is joined with an access code: open the link that came with your code, or redeem the code on ${portal}`;
    return { outcome: { kind: "plan", planId: plan.id }, text };
  }
  const { connectorKey, externalUserId } = input.account;
  const known = (await membersTable
    .rows(ctx)
    .where({ project_id: plan.project_id, connector_key: connectorKey, external_user_id: externalUserId })
    .first()) as MemberRow | undefined;
  try {
    if (known) {
      refuseBanned(known);
      await refuseLiveSubscription(ctx, plan.project_id, known.id);
    }
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const text = refusalText(err);
    if (!text) throw err;
    return { outcome: { kind: "refused", code: err.code }, text };
  }
  const method = methodsSelling(await enabledPaymentMethods(ctx, plan.project_id), plan).find((m) => m.provider === "telegram_stars");
  if (method && input.installation.connector_key === "telegram") {
    const { member } = await findOrCreateMember(ctx, plan.project_id, input.account);
    // Invoices cannot be withdrawn: one made for an earlier checkout is declined at the pre-checkout query once this one closes it.
    const { checkout } = await openCheckout(ctx, {
      member,
      plan,
      provider: "telegram_stars",
      paymentMethodId: method.id,
      providerAccount: input.installation.id,
    });
    const renews = plan.billing_cycle === "lifetime" ? "one payment, access for life" : "renews every 30 days until you cancel";
    const text = `${plan.name}: ${inStars(plan)} (${renews}).`;
    return { outcome: { kind: "checkout", checkout, plan, method: { id: method.id, mode: method.mode } }, text };
  }
  return { outcome: { kind: "plan", planId: plan.id }, text: `${plan.name}: ${price(plan)}.\nCheck out on ${portal}?plan=${plan.id}` };
}

async function redeemedText(ctx: DomainContext, redemption: Redemption): Promise<string> {
  const titles = await labelsById(
    ctx,
    resourcesTable,
    "title",
    redemption.grants.map((g) => g.resource_id),
  );
  const lines = redemption.grants.map((g) =>
    g.grant_mode === "creator_task"
      ? `• ${titles.get(g.resource_id)}: the creator will hand this over to you personally.`
      : `• ${titles.get(g.resource_id)}: your invite follows in a moment.`,
  );
  return ["Your access code worked: welcome!", ...lines].join("\n");
}

/** Opens the bot for `input.account` with `input.payload`; changes (a redemption) join `ctx`'s transaction. */
export async function openStart(ctx: DomainContext, input: StartInput): Promise<StartReply> {
  const read = readStartPayload(input.payload);
  const projectId = input.installation.project_id;
  if (read.kind === "auth")
    return isIdentityLinkToken(read.token) ? linkCreatorAccount(ctx, input, read.token) : portalSignIn(ctx, input, read.token);
  if (read.kind === "command") {
    const result = await runAdminCommand(ctx, input, read.name, read.args);
    if (result) return { outcome: { kind: "command", name: read.name, done: result.done }, text: result.text };
  }
  if (read.kind === "uuid") {
    const plan = (await plansTable.rows(ctx).where({ id: read.value, project_id: projectId, status: "published" }).first()) as PlanRow | undefined;
    if (plan) return planOffer(ctx, input, plan);
    try {
      // A savepoint: a refusal rolls back the redemption's partial writes, not the caller's transaction.
      const redemption = await inTransaction(ctx, (trx) => redeemAccessCode(trx, { projectId, code: read.value, member: input.account }));
      return { outcome: { kind: "redeemed", redemption }, text: await redeemedText(ctx, redemption) };
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      // Neither a plan nor a code of this project: the home screen, as for any other payload.
      if (err.code === "ACCESS_CODE_INVALID") return home(ctx, input, "This link is not valid any more.");
      const text = refusalText(err);
      if (!text) throw err;
      return { outcome: { kind: "refused", code: err.code }, text };
    }
  }
  return home(ctx, input);
}

const SIGN_IN_REFUSALS = {
  unknown: "This sign-in link is not valid. Start again from the portal.",
  expired: "This sign-in link has expired. Start again from the portal.",
  used: "This sign-in link was already used. Start again from the portal.",
  banned: "You cannot sign in to this community.",
};

/**
 * auth_<token>: the portal's sign-in handoff, proposed for this account's member of the project.
 * The reply names the browser that asked and when, with the link whose page signs it in: a start
 * link someone else made signs nobody in unless this person confirms it, having seen for what.
 */
async function portalSignIn(ctx: DomainContext, input: StartInput, token: string): Promise<StartReply> {
  const result = await proposeHandoff(ctx, { installation: input.installation, account: input.account, token });
  if (!result.proposed) return { outcome: { kind: "portal-sign-in", proposed: false }, text: SIGN_IN_REFUSALS[result.reason] };
  const at = result.requestedAt.toISOString();
  const text = [
    `Someone asked to sign in to the portal as you from ${result.browser}, at ${at.slice(11, 16)} UTC on ${at.slice(0, 10)}.`,
    `If that was you, confirm here, then go back to that browser and press Continue: ${await portalOf(ctx, input)}/sign-in/confirm/${result.secret}`,
    "If it was not you, ignore this message: nobody is signed in.",
  ].join("\n");
  return { outcome: { kind: "portal-sign-in", proposed: true }, text };
}

async function home(ctx: DomainContext, input: StartInput, notice?: string): Promise<StartReply> {
  const settings = (input.installation.settings ?? {}) as Record<string, unknown>;
  const welcome = typeof settings.welcome_message === "string" && settings.welcome_message ? settings.welcome_message : "Welcome!";
  const text = `${notice ? `${notice}\n` : ""}${welcome}\nPlans and your memberships: ${await portalOf(ctx, input)}`;
  return { outcome: { kind: "home" }, text };
}
