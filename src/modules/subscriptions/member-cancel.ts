// A member cancelling their own subscription, from the portal or the bot's /cancel (issue 33). It is
// the creator's cancellation (cancel_subscription) with the member as the causer: the provider's
// renewals stop first, outside any transaction (cancelAtProvider), then the subscription is cancelled
// at period end (cancelSubscription: access kept until ends_at, subscription.cancelled). Only the
// member's own subscription of the project is found: another member's is not found at all.
import { ApiError, notFound } from "../../errors.ts";
import { inTransaction, type DomainContext } from "../../db/tenant.ts";
import { cancelAtProvider } from "../payments/cancel.ts";
import type { ProviderRegistry } from "../payments/providers.ts";
import { plansTable } from "../plans/tables.ts";
import { cancelSubscription } from "./subscriptions.ts";
import { LIVE_STATUSES, subscriptionsTable, type SubscriptionRow } from "./tables.ts";
import { ENGLISH_TEXTS, type BotTexts } from "../connectors/bot/texts.ts";

export interface MemberSubscription {
  row: SubscriptionRow;
  planName: string;
}

/** Whom a member's cancellation concerns: the member (the causer of its entries) on one project. */
export interface MemberScope {
  projectId: string;
  memberId: string;
}

/** The context acting as the member: entries name them as the causer (causer_type member). */
export function asMember(ctx: DomainContext, memberId: string): DomainContext {
  return { ...ctx, actor: { ...ctx.actor, memberId } };
}

/** The member's live subscriptions of the project (the ones they can cancel), oldest first, with their plan's name. */
export async function liveSubscriptionsOf(ctx: DomainContext, scope: MemberScope): Promise<MemberSubscription[]> {
  const rows = (await subscriptionsTable
    .rows(ctx)
    .where({ project_id: scope.projectId, member_id: scope.memberId })
    .whereIn("status", [...LIVE_STATUSES])
    .orderBy([{ column: "created_at" }, { column: "id" }])) as SubscriptionRow[];
  return withPlanNames(ctx, rows);
}

/** The member's own subscription `id` of the project with its plan's name; 404 RESOURCE_NOT_FOUND for any other. */
export async function memberSubscription(ctx: DomainContext, scope: MemberScope, id: string): Promise<MemberSubscription> {
  const row = (await subscriptionsTable.rows(ctx).where({ id, project_id: scope.projectId, member_id: scope.memberId }).first()) as
    SubscriptionRow | undefined;
  if (!row) throw notFound("subscription");
  return (await withPlanNames(ctx, [row]))[0]!;
}

async function withPlanNames(ctx: DomainContext, rows: SubscriptionRow[]): Promise<MemberSubscription[]> {
  if (!rows.length) return [];
  const plans = (await plansTable
    .rows(ctx)
    .whereIn("id", [...new Set(rows.map((r) => r.plan_id))])
    .select("id", "name")) as { id: string; name: string }[];
  const names = new Map(plans.map((p) => [p.id, p.name]));
  return rows.map((row) => ({ row, planName: names.get(row.plan_id) ?? "A plan" }));
}

// The words the portal and the bot use for a cancellation.
/** Providers by the names members know them. */
export const PROVIDER_NAMES: Record<string, string> = { stripe: "Stripe", telegram_stars: "Telegram" };

/** A date as members read it on the portal ("27 November 2026", UTC). */
export const longDay = (at: Date) => new Date(at).toLocaleDateString("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });

/** What cancelling `row` does, one sentence a line: what renews no more and how long access lasts (the bot's words in its member's language). */
export function cancellationTerms(row: Pick<SubscriptionRow, "provider" | "ends_at">, { t, day }: BotTexts = ENGLISH_TEXTS): string[] {
  const renewals =
    row.provider === "telegram_stars"
      ? t("Renewals stop: Telegram stops charging your Stars for this subscription.")
      : row.provider
        ? t("Renewals stop: {provider} does not charge you again.", { provider: PROVIDER_NAMES[row.provider] ?? row.provider })
        : t("Nothing is charged for it, and it does not continue after its period.");
  const access = row.ends_at
    ? t("You keep your access until {date}; then it ends.", { date: day(row.ends_at) })
    : t("It has no end date, so your access ends now.");
  return [renewals, access];
}

/** Why a subscription that is not live cannot be cancelled, in words. */
export function notLiveText(row: SubscriptionRow, { t, day }: BotTexts = ENGLISH_TEXTS): string {
  if (row.status === "canceled")
    return row.ends_at
      ? t("This subscription is already cancelled: your access continues until {date}.", { date: day(row.ends_at) })
      : t("This subscription is already cancelled.");
  return t("This subscription has already ended.");
}

export type MemberCancellation =
  | { kind: "cancelled"; subscription: SubscriptionRow; planName: string }
  /** It was no longer live (cancelled or ended before): nothing changed. */
  | { kind: "not-live"; subscription: SubscriptionRow; planName: string };

/**
 * Cancels the member's subscription `id` at period end, the provider first. A provider that cannot
 * be reached throws (PAYMENT_METHOD_NOT_CONFIGURED, SERVICE_BUSY) with nothing changed; another
 * member's or an unknown subscription throws 404. `ctx` must not be inside a transaction (the
 * provider is asked over HTTP); the cancellation opens its own.
 */
export async function cancelAsMember(ctx: DomainContext, registry: ProviderRegistry, scope: MemberScope, id: string): Promise<MemberCancellation> {
  const member = asMember(ctx, scope.memberId);
  const found = await memberSubscription(member, scope, id);
  if (!LIVE_STATUSES.includes(found.row.status)) return { kind: "not-live", subscription: found.row, planName: found.planName };
  await cancelAtProvider(member, registry, id);
  let cancelled = true;
  try {
    await inTransaction(member, (trx) => cancelSubscription(trx, id));
  } catch (err) {
    // Cancelled (or ended) by someone else since it was read: the refusal says it is no longer live.
    if (!(err instanceof ApiError) || err.code !== "VALIDATION_FAILED") throw err;
    cancelled = false;
  }
  const after = await memberSubscription(member, scope, id);
  return { kind: cancelled ? "cancelled" : "not-live", subscription: after.row, planName: after.planName };
}
