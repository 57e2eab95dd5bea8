// A creator refunds a member's payment (issue 33; the API's payment:refund is still "Coming", so the
// authorization host's refunds page is where it is done). The provider is asked outside any
// transaction; what it reports back records the refund once through the inbox (apply.ts): Stripe's
// charge.refunded webhook, and for Telegram Stars the refunded_payment message, which is also
// applied here under the message's own event id (telegram-refund:<charge>) because the Bot API does
// not promise the bot that message, so whichever comes second is a duplicate. A whole refund of the
// payment that pays the current period ends the member's access now (the rule in apply.ts).
import Stripe from "stripe";
import { addFieldError, ApiError, emptyFieldErrors, validationFailed } from "../../errors.ts";
import { recordActivity } from "../activity/activity-log.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { membersTable, type MemberRow } from "../members/tables.ts";
import { paymentMethodsTable, type PaymentMethodRow } from "../payment-methods/tables.ts";
import { plansTable, type PlanRow } from "../plans/tables.ts";
import { LIVE_STATUSES, subscriptionsTable, type SubscriptionRow } from "../subscriptions/tables.ts";
import { transactionsTable, type TransactionRow } from "../transactions/tables.ts";
import { latestPayment } from "./apply.ts";
import { applyProviderEvents, type OutcomeDeps } from "./outcome.ts";
import type { ProviderName } from "./provider.ts";
import { alreadyRefunded } from "./reconcile-refunds.ts";
import { parseStarsPaymentId } from "./stars/ids.ts";
import { formatMinor, minorDigits } from "./money.ts";

export { formatMinor, minorDigits } from "./money.ts";

/** The providers whose payments a creator refunds here (access codes take no money). */
const REFUNDABLE: readonly ProviderName[] = ["stripe", "telegram_stars"];
/** Payments per page of the list. */
export const PAYMENTS_PER_PAGE = 25;

export interface PaymentView {
  id: string;
  memberName: string;
  planName: string;
  amountMinor: number;
  currency: string;
  refundedMinor: number;
  provider: ProviderName;
  createdAt: Date;
}

/** A decimal the creator typed ("12.5", "12.50") as minor units of `currency`, or null when it is not one. */
export function parseDecimalMinor(text: string, currency: string): number | null {
  const digits = minorDigits(currency);
  const match = (digits ? /^([0-9]{1,12})(?:\.([0-9]*))?$/ : /^([0-9]{1,12})$/).exec(text.trim());
  if (!match || (match[2] ?? "").length > digits) return null;
  return Number(match[1]) * 10 ** digits + Number((match[2] ?? "").padEnd(digits, "0") || 0);
}

async function views(ctx: DomainContext, rows: TransactionRow[]): Promise<PaymentView[]> {
  const ids = rows.map((r) => r.id);
  const members = (await membersTable.rows(ctx).whereIn("id", [...new Set(rows.map((r) => r.member_id))])) as MemberRow[];
  const plans = (await plansTable.rows(ctx).whereIn("id", [...new Set(rows.flatMap((r) => (r.plan_id ? [r.plan_id] : [])))])) as PlanRow[];
  const refunds = (await transactionsTable
    .rows(ctx)
    .whereIn("refunded_transaction_id", ids)
    .where({ kind: "refund" })
    .groupBy("refunded_transaction_id")
    .select("refunded_transaction_id")
    .sum({ total: "amount_minor" })) as { refunded_transaction_id: string; total: string | number }[];
  return rows.map((r) => {
    const member = members.find((m) => m.id === r.member_id);
    return {
      id: r.id,
      memberName: member?.display_name || member?.external_user_id || "A member",
      planName: plans.find((p) => p.id === r.plan_id)?.name ?? "",
      amountMinor: Number(r.amount_minor),
      currency: r.currency,
      refundedMinor: Number(refunds.find((x) => x.refunded_transaction_id === r.id)?.total ?? 0),
      provider: r.provider as ProviderName,
      createdAt: new Date(r.created_at),
    };
  });
}

const paymentsOf = (ctx: DomainContext, projectId: string) =>
  transactionsTable
    .rows(ctx)
    .where({ project_id: projectId, kind: "payment" })
    .whereIn("provider", REFUNDABLE)
    .whereIn("status", ["succeeded", "refunded"]);

/** The project's provider payments, newest first, `PAYMENTS_PER_PAGE` from page `page` (0-based); `more` when a next page has some. */
export async function recentPayments(ctx: DomainContext, projectId: string, page: number): Promise<{ payments: PaymentView[]; more: boolean }> {
  const rows = (await paymentsOf(ctx, projectId)
    .orderBy([
      { column: "created_at", order: "desc" },
      { column: "id", order: "desc" },
    ])
    .offset(page * PAYMENTS_PER_PAGE)
    .limit(PAYMENTS_PER_PAGE + 1)) as TransactionRow[];
  return { payments: await views(ctx, rows.slice(0, PAYMENTS_PER_PAGE)), more: rows.length > PAYMENTS_PER_PAGE };
}

export interface RefundablePayment extends PaymentView {
  row: TransactionRow;
  /** A whole refund ends the member's access now: it is the payment of a live subscription's current period. */
  paysCurrentPeriod: boolean;
}

/** The project's provider payment `id`, or null when it is not one (another team's, a refund, an access code). */
export async function refundablePayment(ctx: DomainContext, projectId: string, id: string): Promise<RefundablePayment | null> {
  const row = (await paymentsOf(ctx, projectId).where({ id }).first()) as TransactionRow | undefined;
  if (!row) return null;
  const [view] = await views(ctx, [row]);
  const subscription = row.subscription_id
    ? ((await subscriptionsTable.rows(ctx).where({ id: row.subscription_id }).first()) as SubscriptionRow | undefined)
    : undefined;
  const live = subscription !== undefined && LIVE_STATUSES.includes(subscription.status);
  const paysCurrentPeriod = live && (await latestPayment(ctx, subscription.id))?.id === row.id;
  return { ...view!, row, paysCurrentPeriod };
}

export type CreatorRefundOutcome = "refunded" | "already_refunded";

/** The amount to refund (null: all that is left), checked against what is left and what the provider can do. */
function refundAmount(payment: RefundablePayment, amountMinor: number | null): number | null {
  const left = payment.amountMinor - payment.refundedMinor;
  const fields = emptyFieldErrors();
  if (amountMinor === null || amountMinor === left) return null;
  if (payment.provider === "telegram_stars")
    addFieldError(fields, "amount", "Telegram Stars refunds a payment wholly and once: leave the amount empty to refund all of it.");
  else if (!Number.isSafeInteger(amountMinor) || amountMinor < 1 || amountMinor > left)
    addFieldError(fields, "amount", `The amount is more than nothing and at most what is left to refund, ${formatMinor(left, payment.currency)}.`);
  if (Object.keys(fields).length) throw validationFailed(fields, "The refund's amount cannot be refunded.");
  return amountMinor;
}

/** The payment method the payment was taken through (Stars: the project's, which the payment may not name). */
async function methodOf(ctx: DomainContext, payment: TransactionRow): Promise<PaymentMethodRow | undefined> {
  const methods = paymentMethodsTable.rows(ctx).where({ project_id: payment.project_id });
  if (payment.payment_method_id) return (await methods.where({ id: payment.payment_method_id }).first()) as PaymentMethodRow | undefined;
  if (payment.provider !== "telegram_stars") return undefined;
  return (await methods.where({ provider: "telegram_stars" }).first()) as PaymentMethodRow | undefined;
}

export interface CreatorRefundDeps extends OutcomeDeps {
  /** Runs `work` in one transaction as the creator (the activity entry's causer). */
  write: (work: (ctx: DomainContext) => Promise<void>) => Promise<void>;
}

/**
 * Refunds `payment` (all that is left, or `amountMinor` of it) through its provider, outside any
 * transaction, and records the creator's action in the activity log. "already_refunded" when
 * nothing is left by our records or the provider says so (an earlier refund whose report is on its
 * way, or one made in the provider's dashboard); a provider that cannot be reached or refuses is
 * PAYMENT_METHOD_NOT_CONFIGURED or SERVICE_BUSY, with nothing refunded.
 */
export async function refundPayment(
  ctx: DomainContext,
  deps: CreatorRefundDeps,
  payment: RefundablePayment,
  amountMinor: number | null,
): Promise<CreatorRefundOutcome> {
  if (payment.refundedMinor >= payment.amountMinor || payment.row.status === "refunded") return "already_refunded";
  const partial = refundAmount(payment, amountMinor);
  const method = await methodOf(ctx, payment.row);
  const target = method ? await deps.registry.providerFor(method) : null;
  const context = { payment_id: payment.id, provider: payment.provider };
  if (!target || !payment.row.provider_reference)
    throw new ApiError(
      "PAYMENT_METHOD_NOT_CONFIGURED",
      `The payment was taken through ${payment.provider}, which this deployment cannot reach now.`,
      {
        context,
      },
    );
  try {
    await target.provider.refund(target.method, payment.row.provider_reference, partial ?? undefined);
  } catch (err) {
    if (alreadyRefunded(err)) return "already_refunded";
    deps.logger.warn({ ...context, err }, "a creator's refund was not made by the provider");
    // Stripe refusing the request itself (more than is left after a refund made in its dashboard): its reason, naming the amount.
    if (err instanceof Stripe.errors.StripeInvalidRequestError) throw validationFailed({ amount: [`Stripe refused the refund: ${err.message}`] });
    throw new ApiError("SERVICE_BUSY", `${payment.provider} did not make the refund just now; nothing was refunded. Try again.`, {
      headers: { "Retry-After": "5" },
      context,
    });
  }
  const refunded = partial ?? payment.amountMinor - payment.refundedMinor;
  await deps.write((domain) =>
    recordActivity(domain, {
      event: "payment_refund_requested",
      description: `Refunded ${formatMinor(refunded, payment.currency)} of ${payment.memberName}'s payment of ${formatMinor(payment.amountMinor, payment.currency)}`,
      // On the subscription the payment bought (a subject the activity API reads; payments are not one yet), else the member.
      ...(payment.row.subscription_id
        ? { subjectType: "subscription", subjectId: payment.row.subscription_id }
        : { subjectType: "member", subjectId: payment.row.member_id }),
      projectId: payment.row.project_id,
      properties: { payment_id: payment.id, amount_minor: refunded, currency: payment.currency, provider: payment.provider, whole: partial === null },
    }),
  );
  if (payment.provider === "telegram_stars") {
    // The refunded_payment message Telegram may send, applied now under its own event id (parseStarsUpdate's).
    const { chargeId } = parseStarsPaymentId(payment.row.provider_reference);
    const event = {
      kind: "payment.refunded" as const,
      eventId: `telegram-refund:${chargeId}`,
      occurredAt: ctx.now,
      // The installation the refund was made through, as Telegram's message would reach it.
      source: target.method.account,
      providerPaymentId: payment.row.provider_reference,
      refundId: payment.row.provider_reference,
      amountMinor: payment.amountMinor,
      currency: payment.currency,
    };
    await applyProviderEvents(deps, [event], ctx.now, { provider: "telegram_stars", log: { payment_id: payment.id } });
  }
  return "refunded";
}
