// Member notices (issue 34 item 5): what the bot tells a member about their own subscription, queued
// in the transaction of its cause as a bot message (purpose "notice", about the subscription) to the
// member's platform account through the project's active installation of the member's connector.
// The bot_messages row is the record. A member with no platform account (portal-only), whose
// project has no active installation of their connector, or who is banned gets no notice. Each
// notice is named (dedupe key) so a producer that runs twice, or two workers racing, queue it once.
import type { DomainContext } from "../../db/tenant.ts";
import { portalPage } from "../alerts/links.ts";
import { queueBotMessage } from "../bot-messages/outbox.ts";
import { phrase, type Phrase } from "../bot-messages/phrases.ts";
import { installationsTable } from "../connectors/tables.ts";
import { membersTable, type MemberRow } from "../members/tables.ts";
import { formatMinor } from "../payments/money.ts";
import { plansTable, type PlanRow } from "../plans/tables.ts";
import { projectsTable, type ProjectRow } from "../projects/tables.ts";
import type { SubscriptionRow } from "../subscriptions/tables.ts";

/** How long before a period ends its reminder is due. */
export const REMINDER_LEAD_MS = 3 * 24 * 3600_000;

/** A renewal reminder (a provider will charge again) or an expiry reminder (access will end). */
export type ReminderKind = "renewal" | "expiry";

type Sub = Pick<SubscriptionRow, "id" | "project_id" | "member_id" | "plan_id" | "status" | "ends_at" | "provider">;

interface Target {
  installation: { id: string; project_id: string; connector_key: string };
  recipient: string;
  project: Pick<ProjectRow, "name" | "handle">;
  plan: Pick<PlanRow, "name" | "amount_minor" | "currency">;
}

/** Where the member of `sub` hears from the bot, with what the texts name; null when they cannot. */
async function targetOf(ctx: DomainContext, sub: Sub): Promise<Target | null> {
  const member = (await membersTable.rows(ctx).where({ id: sub.member_id }).first("connector_key", "external_user_id", "status")) as
    Pick<MemberRow, "connector_key" | "external_user_id" | "status"> | undefined;
  if (!member?.connector_key || !member.external_user_id || member.status === "banned") return null;
  const installation = (await installationsTable
    .rows(ctx)
    .where({ project_id: sub.project_id, connector_key: member.connector_key, status: "active" })
    .first("id", "project_id", "connector_key")) as Target["installation"] | undefined;
  if (!installation) return null;
  const project = (await projectsTable.rows(ctx).where({ id: sub.project_id }).first("name", "handle")) as Target["project"];
  const plan = (await plansTable.rows(ctx).where({ id: sub.plan_id }).first("name", "amount_minor", "currency")) as Target["plan"];
  return { installation, recipient: member.external_user_id, project, plan };
}

/** A moment as the texts write it: "2026-12-01 14:00 UTC". */
const when = (at: Date | string) => `${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** The names every notice's text fills in. */
const named = (t: Target) => ({ project: t.project.name, plan: t.plan.name });

/** The bot message's dedupe key of the notice `name` about subscription `subscriptionId`. */
const noticeKey = (name: string, subscriptionId: string) => `notice:${name}:${subscriptionId}`;

/** Queues the notice `name` about `sub` (once per name); true when it was queued now. */
async function queueNotice(ctx: DomainContext, sub: Sub, name: string, line: (t: Target) => Phrase): Promise<boolean> {
  const target = await targetOf(ctx, sub);
  if (!target) return false;
  const id = await queueBotMessage(ctx, {
    installation: target.installation,
    recipient: target.recipient,
    phrases: [line(target)],
    purpose: "notice",
    subject: { type: "subscription", id: sub.id },
    dedupeKey: noticeKey(name, sub.id),
  });
  return id !== null;
}

/**
 * Which reminder a subscription's period end calls for: a renewal when its provider will charge
 * again (active or trialing, provider-billed), an expiry when access simply ends there (cancelled
 * at period end, or a period nobody bills: an access code's, a one-off or a trial that will not
 * convert); none for a lifetime one or one past due (the payment-failure notice covers it).
 */
export function reminderKind(sub: Sub): ReminderKind | null {
  if (sub.ends_at === null) return null;
  if (sub.status === "canceled") return "expiry";
  if (sub.status !== "active" && sub.status !== "trialing") return null;
  return sub.provider ? "renewal" : "expiry";
}

/** The name of `kind`'s reminder of the period ending at `endsAt`: one per subscription and period end. */
const reminderName = (kind: ReminderKind, endsAt: Date | string) => `${kind}-reminder:${new Date(endsAt).toISOString()}`;

/** The dedupe key `kind`'s reminder of `sub`'s current period end is queued under. */
export const reminderKey = (kind: ReminderKind, sub: Sub & { ends_at: Date }) => noticeKey(reminderName(kind, sub.ends_at), sub.id);

/** Queues the reminder `kind` of `sub`'s current period end; true when queued now. */
export function queueReminder(ctx: DomainContext, sub: Sub & { ends_at: Date }, kind: ReminderKind): Promise<boolean> {
  return queueNotice(ctx, sub, reminderName(kind, sub.ends_at), (t) =>
    kind === "renewal"
      ? phrase("{project}: your {plan} membership renews on {date} for {price}. To change or cancel it: {link}", {
          ...named(t),
          date: when(sub.ends_at),
          price: formatMinor(Number(t.plan.amount_minor), t.plan.currency),
          link: `${portalPage(t.project.handle)}/account`,
        })
      : phrase("{project}: your {plan} access ends on {date}. To keep it, renew on {link}", {
          ...named(t),
          date: when(sub.ends_at),
          link: portalPage(t.project.handle),
        }),
  );
}

/** Tells the member their access ended (the subscription expired, whatever ended it). */
export function queueAccessEndedNotice(ctx: DomainContext, sub: Sub): Promise<boolean> {
  return queueNotice(ctx, sub, "access-ended", (t) =>
    phrase("Your access to {project} has ended. To come back, choose a plan on {link}", { ...named(t), link: portalPage(t.project.handle) }),
  );
}

/**
 * Tells the member a payment failed and until when access continues: once per grace period (a
 * retry's failure does not extend the grace, so it says nothing new).
 */
export async function queuePaymentFailedNotice(ctx: DomainContext, sub: Sub, nextRetryAt: Date | null): Promise<boolean> {
  const graceEnd = sub.ends_at;
  if (graceEnd === null) return false;
  return queueNotice(ctx, sub, `payment-failed:${new Date(graceEnd).toISOString()}`, (t) => {
    const vars = { ...named(t), date: when(graceEnd), link: `${portalPage(t.project.handle)}/account` };
    return nextRetryAt
      ? phrase(
          "{project}: your payment for {plan} failed. Your access continues until {date}. It will be tried again on {retry}. Update your payment method on {link}",
          { ...vars, retry: when(nextRetryAt) },
        )
      : phrase("{project}: your payment for {plan} failed. Your access continues until {date}. Update your payment method on {link}", vars);
  });
}
