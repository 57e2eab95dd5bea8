// What a connector bot does when a member opens it with a start payload (description: "Start
// payload handling by the connector bot"). The payload is read by the SDK's readStartPayload, the
// one reader connector authors use too: `auth_<token>` (a portal sign-in handoff, or with a "c-"
// token a creator linking their account, identity-link.ts), `-<command>`
// (an admin command, effective only for a project admin), a bare UUID (a plan of the project, then
// an access code), anything else the home screen. There is no key=value syntax. Every text a member
// reads comes from input.texts (the package's language files, texts.ts).
import { readStartPayload } from "@subbridge/sdk/connector";
import { UUID } from "../../../uuid.ts";
import { ApiError } from "../../../errors.ts";
import { inTransaction, type DomainContext } from "../../../db/tenant.ts";
import { redeemAccessCode, type Redemption } from "../../access-codes/redeem.ts";
import { projectsTable } from "../../projects/projects.ts";
import { passWindowsTable, plansTable, type PlanRow } from "../../plans/tables.ts";
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
import { ENGLISH_TEXTS, settingsOf, type BotTexts } from "./texts.ts";
import { ACCEPT_TERMS_COMMAND, acceptTerms, termsOfferText, termsUrlOf, termsAccepted } from "./terms.ts";

export { planPrice } from "../../payments/selling.ts";

export type StartOutcome =
  | { kind: "home" }
  | { kind: "plan"; planId: string }
  /** The plan is sold in Stars behind terms the member has not accepted: the terms and the link accepting them. */
  | { kind: "terms"; planId: string; termsUrl: string }
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
export function refusalText(err: ApiError, { t }: BotTexts = ENGLISH_TEXTS): string | null {
  if (err.code === "ACCESS_CODE_EXPIRED") return t("This access code has expired.");
  if (err.code === "ACCESS_CODE_ALREADY_REDEEMED") return t("This access code has already been used.");
  if (err.code === "SUBSCRIPTION_ALREADY_ACTIVE") return t("You already have an active membership here.");
  if (err.code === "VALIDATION_FAILED" && err.context?.reason === "member_banned") return t("You cannot join this community.");
  return null;
}

/** The project's portal (<portal>/<handle>), where the bots send members to join and manage their memberships. */
export async function projectPortal(ctx: DomainContext, projectId: string, portalUrl: string): Promise<string> {
  const project = (await projectsTable.rows(ctx).where({ id: projectId }).first("handle", "name")) as { handle: string };
  return `${portalUrl.replace(/\/+$/, "")}/${project.handle}`;
}

const portalOf = (ctx: DomainContext, input: StartInput) => projectPortal(ctx, input.installation.project_id, input.portalUrl);

/** A Stars price in words ("250 stars"). */
const inStars = (plan: PlanRow, { t }: BotTexts) =>
  t(Number(plan.amount_minor) === 1 ? "{count} star" : "{count} stars", { count: plan.amount_minor });

/** How often a plan is paid, in words ("once", "every month", "every 3 months"). */
function every(plan: PlanRow, { t }: BotTexts): string {
  const count = plan.billing_cycle_count;
  if (plan.billing_cycle === "lifetime") return t("once");
  return count > 1 ? t(`every {count} ${plan.billing_cycle}s`, { count }) : t(`every ${plan.billing_cycle}`);
}

/** A plan's price in words ("$5.00 every month", "250 stars once"), as the bot and the portal show it. */
export function price(plan: PlanRow, texts: BotTexts = ENGLISH_TEXTS): string {
  // XTR (Telegram Stars) is no ISO currency: Intl would show it as "XTR 2.50" for 250 whole stars.
  if (plan.currency === "XTR") return `${inStars(plan, texts)} ${every(plan, texts)}`;
  const format = new Intl.NumberFormat(texts.lang, { style: "currency", currency: plan.currency });
  return `${format.format(Number(plan.amount_minor) / 10 ** format.resolvedOptions().maximumFractionDigits!)} ${every(plan, texts)}`;
}

/**
 * A published plan's bare UUID: an access-code-only plan points to its code; a member with a live
 * subscription (or banned) is told so; a plan the project sells in Telegram Stars through this bot
 * opens a checkout (a new one each time, closing the member's earlier one, whose invoice is then
 * declined at pre-checkout); anything else goes to the portal's plan page, as does a plan sold as
 * passes for dated windows (the member picks the window there, seeing the seats left). With the
 * installation's accept_stars off the bot never sells in Stars; with a terms_url the member first
 * accepts the terms (`accepting`: they opened the acceptance link) before the Stars checkout opens.
 */
async function planOffer(ctx: DomainContext, input: StartInput, plan: PlanRow, accepting = false): Promise<StartReply> {
  const { t } = input.texts;
  const portal = await portalOf(ctx, input);
  if (plan.access_codes_only) {
    const text = t("{plan} is joined with an access code: open the link that came with your code, or redeem the code on {portal}", {
      plan: plan.name,
      portal,
    });
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
    const text = refusalText(err, input.texts);
    if (!text) throw err;
    return { outcome: { kind: "refused", code: err.code }, text };
  }
  const passes = await passWindowsTable.rows(ctx).where({ plan_id: plan.id }).first("id");
  if (passes) {
    const text = t("{plan} is sold as passes for dated windows.\nPick your date on {link}", { plan: plan.name, link: `${portal}?plan=${plan.id}` });
    return { outcome: { kind: "plan", planId: plan.id }, text };
  }
  const settings = settingsOf(input.installation);
  const termsUrl = termsUrlOf(settings);
  const method = starsAccepted(input.installation)
    ? methodsSelling(await enabledPaymentMethods(ctx, plan.project_id), plan).find((m) => m.provider === "telegram_stars")
    : undefined;
  if (method) {
    const { member } = await findOrCreateMember(ctx, plan.project_id, input.account);
    const text = `${plan.name}: ${inStars(plan, input.texts)} (${renewal(plan, input.texts)}).`;
    if (termsUrl && !(await termsAccepted(ctx, input.installation.id, member.id, termsUrl))) {
      if (!accepting) return { outcome: { kind: "terms", planId: plan.id, termsUrl }, text: termsOfferText(input, plan, termsUrl, text) };
      await acceptTerms(ctx, { installation: input.installation, member, termsUrl });
    }
    // Invoices cannot be withdrawn: one made for an earlier checkout is declined at the pre-checkout query once this one closes it.
    const { checkout } = await openCheckout(ctx, {
      member,
      plan,
      provider: "telegram_stars",
      paymentMethodId: method.id,
      providerAccount: input.installation.id,
    });
    return { outcome: { kind: "checkout", checkout, plan, method: { id: method.id, mode: method.mode } }, text };
  }
  const offer = `${plan.name}: ${price(plan, input.texts)}.\n${t("Check out on {link}", { link: `${portal}?plan=${plan.id}` })}`;
  return { outcome: { kind: "plan", planId: plan.id }, text: termsUrl ? `${offer}\n${t("Terms: {terms}", { terms: termsUrl })}` : offer };
}

/** What a Stars plan's payment does, in words. */
const renewal = (plan: PlanRow, { t }: BotTexts) =>
  plan.billing_cycle === "lifetime" ? t("one payment, access for life") : t("renews every 30 days until you cancel");

/** Whether the installation's bot sells in Telegram Stars: a Telegram bot whose accept_stars is not switched off (absent: on, as before the setting). */
export function starsAccepted(installation: StartInput["installation"]): boolean {
  return installation.connector_key === "telegram" && settingsOf(installation).accept_stars !== false;
}

async function redeemedText(ctx: DomainContext, redemption: Redemption, { t }: BotTexts): Promise<string> {
  const titles = await labelsById(
    ctx,
    resourcesTable,
    "title",
    redemption.grants.map((g) => g.resource_id),
  );
  const lines = redemption.grants.map((g) =>
    g.grant_mode === "creator_task"
      ? t("• {resource}: the creator will hand this over to you personally.", { resource: titles.get(g.resource_id) ?? "" })
      : t("• {resource}: your invite follows in a moment.", { resource: titles.get(g.resource_id) ?? "" }),
  );
  return [t("Your access code worked: welcome!"), ...lines].join("\n");
}

/** Opens the bot for `input.account` with `input.payload`; changes (a redemption) join `ctx`'s transaction. */
export async function openStart(ctx: DomainContext, input: StartInput): Promise<StartReply> {
  const read = readStartPayload(input.payload);
  const projectId = input.installation.project_id;
  if (read.kind === "auth")
    return isIdentityLinkToken(read.token) ? linkCreatorAccount(ctx, input, read.token) : portalSignIn(ctx, input, read.token);
  if (read.kind === "command" && read.name === ACCEPT_TERMS_COMMAND) {
    // The terms' acceptance link of a plan (terms.ts): a member command, open to anyone, unlike the admin ones.
    const plan = UUID.test(read.args[0] ?? "")
      ? ((await plansTable.rows(ctx).where({ id: read.args[0], project_id: projectId, status: "published" }).first()) as PlanRow | undefined)
      : undefined;
    return plan ? planOffer(ctx, input, plan, true) : home(ctx, input);
  }
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
      return { outcome: { kind: "redeemed", redemption }, text: await redeemedText(ctx, redemption, input.texts) };
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      // Neither a plan nor a code of this project: the home screen, as for any other payload.
      if (err.code === "ACCESS_CODE_INVALID") return home(ctx, input, input.texts.t("This link is not valid any more."));
      const text = refusalText(err, input.texts);
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
  const { t } = input.texts;
  if (!result.proposed) return { outcome: { kind: "portal-sign-in", proposed: false }, text: t(SIGN_IN_REFUSALS[result.reason]) };
  const at = result.requestedAt.toISOString();
  const link = `${await portalOf(ctx, input)}/sign-in/confirm/${result.secret}`;
  const text = [
    t("Someone asked to sign in to the portal as you from {browser}, at {time} UTC on {date}.", {
      browser: result.browser,
      time: at.slice(11, 16),
      date: at.slice(0, 10),
    }),
    t("If that was you, confirm here, then go back to that browser and press Continue: {link}", { link }),
    t("If it was not you, ignore this message: nobody is signed in."),
  ].join("\n");
  return { outcome: { kind: "portal-sign-in", proposed: true }, text };
}

async function home(ctx: DomainContext, input: StartInput, notice?: string): Promise<StartReply> {
  const { t } = input.texts;
  const settings = settingsOf(input.installation);
  // The welcome message is the creator's own text, sent as written; only the default is translated.
  const welcome = typeof settings.welcome_message === "string" && settings.welcome_message ? settings.welcome_message : t("Welcome!");
  const text = `${notice ? `${notice}\n` : ""}${welcome}\n${t("Plans and your memberships: {portal}", { portal: await portalOf(ctx, input) })}`;
  return { outcome: { kind: "home" }, text };
}
