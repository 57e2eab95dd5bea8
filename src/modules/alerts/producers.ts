// What each cause of a creator alert says (rule 5), one function per producer, each called in the
// transaction of its cause so the alert exists if and only if the cause committed. A project's
// alerts go to its team's owner and admins; an account's (security, billing) to its creator only.
import { unscoped, type Db, type DomainContext } from "../../db/tenant.ts";
import { membersTable, type MemberRow } from "../members/tables.ts";
import { formatMinor } from "../payments/money.ts";
import { plansTable, type PlanRow } from "../plans/tables.ts";
import { projectsTable, type ProjectRow } from "../projects/tables.ts";
import { apiAddress, authPage, portalPage } from "./links.ts";
import { raiseAlert, type Alert } from "./raise.ts";

/** How a member is named to the creator: their display name, else their platform account. */
const memberName = (m: Pick<MemberRow, "display_name" | "connector_key" | "external_user_id" | "id">) =>
  m.display_name ?? `${m.connector_key ?? "platform"} user ${m.external_user_id ?? m.id}`;

async function projectOf(ctx: DomainContext, projectId: string): Promise<ProjectRow> {
  return (await projectsTable.rows(ctx).where({ id: projectId }).first()) as ProjectRow;
}

/** Raises a project's alert for its team's owner and admins. */
async function raiseForProject(ctx: DomainContext, projectId: string, alert: Omit<Alert, "teamId" | "projectId">) {
  return raiseAlert(ctx, ctx.now, { team: ctx.actor.teamId }, { ...alert, teamId: ctx.actor.teamId, projectId });
}

// sales ------------------------------------------------------------------------------------------

/** A member paid: a new subscription's first payment or a renewal (one alert per payment). */
export async function alertSale(
  ctx: DomainContext,
  sale: {
    provider: string;
    plan: PlanRow;
    memberId: string;
    renewal: boolean;
    payment: { providerPaymentId: string; amountMinor: number; currency: string };
  },
) {
  const { plan, payment } = sale;
  const member = (await membersTable.rows(ctx).where({ id: sale.memberId }).first()) as MemberRow;
  const project = await projectOf(ctx, plan.project_id);
  const who = memberName(member);
  const paid = formatMinor(payment.amountMinor, payment.currency);
  await raiseForProject(ctx, plan.project_id, {
    class: "sales",
    title: sale.renewal ? `Renewal: ${who} renewed ${plan.name} (${paid})` : `New sale: ${who} subscribed to ${plan.name} (${paid})`,
    body:
      `${who} ${sale.renewal ? "renewed" : "subscribed to"} ${plan.name} in ${project.name} and paid ${paid} through ${sale.provider}.\n\n` +
      `The project's payments: ${authPage(`/payments/projects/${plan.project_id}/payments`)}`,
    dedupeKey: `sale:${sale.provider}:${payment.providerPaymentId}`,
  });
}

// support ----------------------------------------------------------------------------------------

/** A member's message arrived through the support relay (opening a conversation or joining one); `preview` is its text, shortened. */
export async function alertSupportMessage(
  ctx: DomainContext,
  input: { conversation: { id: string; project_id: string; subject: string }; member: string; preview: string; opened: boolean },
) {
  const { conversation } = input;
  const project = await projectOf(ctx, conversation.project_id);
  await raiseForProject(ctx, conversation.project_id, {
    class: "support",
    title: input.opened ? `Support: ${input.member} opened a conversation` : `Support: ${input.member} wrote again`,
    body:
      `${input.member} wrote to ${project.name}:\n\n"${input.preview}"\n\n` +
      `Conversation "${conversation.subject}" (${conversation.id}). Reply through the API (or an agent's tool reply_to_support_conversation):\n` +
      `POST ${apiAddress(`/v1/projects/${conversation.project_id}/support/conversations/${conversation.id}/messages`)}`,
  });
}

// passes -----------------------------------------------------------------------------------------

/** A creator task was opened: a resource the creator hands over by hand. */
export async function alertCreatorTask(
  ctx: DomainContext,
  task: { id: string; project_id: string; grant_id: string; instructions: string; due_at: Date | null },
) {
  await raiseForProject(ctx, task.project_id, {
    class: "passes",
    title: "A new task: a member is waiting for a hand-over",
    body: `${task.instructions}${task.due_at ? `\n\nDue ${new Date(task.due_at).toISOString()}.` : ""}\n\nTask ${task.id}.`,
    dedupeKey: `creator-task:${task.grant_id}`,
  });
}

/**
 * A pass window was created: a window "starting" is only its time, so the alert comes when it is
 * opened for sale and names its start.
 */
export async function alertPassWindow(ctx: DomainContext, window: { id: string; plan_id: string; name: string; starts_at: string; ends_at: string }) {
  const plan = (await plansTable.rows(ctx).where({ id: window.plan_id }).first()) as PlanRow;
  const project = await projectOf(ctx, plan.project_id);
  await raiseForProject(ctx, plan.project_id, {
    class: "passes",
    title: `Pass window "${window.name}" of ${plan.name} is open`,
    body:
      `Passes of ${plan.name} (${project.name}) now sell for "${window.name}": from ${window.starts_at} to ${window.ends_at}.\n\n` +
      `The project's portal: ${portalPage(project.handle)}`,
  });
}

// onboarding -------------------------------------------------------------------------------------

// The operator's CLI and the first start's demo act as the system: the creator hears of those from
// the operator, so only what a creator's own session or token does is onboarding (or a security alert).
const byCreator = (ctx: DomainContext) => ctx.actor.kind !== "system" && ctx.actor.userId !== null;

/** The whole team's rows of `table` (a restricted token sees fewer): whether this one is the first. */
async function teamCount(ctx: DomainContext, table: "projects" | "connector_installations"): Promise<number> {
  const rows = unscoped(ctx, "whether it is the team's first, whatever projects the token may see");
  const found = (await rows(table).where({ team_id: ctx.actor.teamId }).count({ n: "*" }).first()) as { n: string | number };
  return Number(found.n);
}

/** The team's first project: what to do next. */
export async function alertFirstProject(ctx: DomainContext, project: { id: string; name: string; handle: string }) {
  if (!byCreator(ctx) || (await teamCount(ctx, "projects")) !== 1) return;
  await raiseForProject(ctx, project.id, {
    class: "onboarding",
    title: `Your first project, ${project.name}, is ready`,
    body:
      `Next: install a connector (a Telegram or Discord bot) on it, connect a way to take payments and create a plan.\n\n` +
      `Payments: ${authPage("/payments")}\nIts portal, where members subscribe: ${portalPage(project.handle)}`,
    dedupeKey: `onboarding:first-project:${ctx.actor.teamId}`,
  });
}

/** The team's first connector installation: what to do next. */
export async function alertFirstInstallation(
  ctx: DomainContext,
  installation: { project_id: string; connector_key: string; platform_account_name: string | null },
) {
  if (!byCreator(ctx) || (await teamCount(ctx, "connector_installations")) !== 1) return;
  const project = await projectOf(ctx, installation.project_id);
  await raiseForProject(ctx, installation.project_id, {
    class: "onboarding",
    title: `Your first connector is installed on ${project.name}`,
    body:
      `${installation.connector_key} (${installation.platform_account_name ?? "its bot"}) now serves ${project.name}. ` +
      `Next: create a plan and link a resource to it; link your own account to the bot to get alerts there.\n\n` +
      `Link your account: ${authPage("/identities")}\nThe project's portal: ${portalPage(project.handle)}`,
    dedupeKey: `onboarding:first-installation:${ctx.actor.teamId}`,
  });
}

// security ---------------------------------------------------------------------------------------

const security = (from: DomainContext | Db, now: Date, userId: string, alert: Omit<Alert, "class">) =>
  raiseAlert(from, now, { userIds: [userId] }, { ...alert, class: "security" });

/** The creator signed in (password, with or without a second factor, or a passkey): a session holds no row, so the alert is its own transaction. */
export async function alertSignIn(db: Db, now: Date, userId: string, from: { ip: string; userAgent: string | undefined }) {
  await db.transaction((trx) =>
    security(trx, now, userId, {
      title: "New sign-in to your account",
      body:
        `Your account was signed in to at ${now.toISOString()} from ${from.ip}${from.userAgent ? ` (${from.userAgent.slice(0, 120)})` : ""}, ` +
        `in a browser that had not signed in to it before.\n\n` +
        `If it was not you, change your password and review your sign-in methods: ${authPage("/security")}`,
    }),
  );
}

/** A second factor changed (an authenticator, a passkey, recovery codes); `what` says which, in a sentence. */
export async function alertFactorChange(db: Db, now: Date, userId: string, what: string) {
  await security(db, now, userId, {
    title: `Your sign-in methods changed: ${what}`,
    body: `${what} at ${now.toISOString()}.\n\nIf it was not you, review your sign-in methods now: ${authPage("/security")}`,
  });
}

/** A personal access token was minted on the creator's account by their own session or token. */
export async function alertTokenMinted(
  ctx: DomainContext & { actor: { userId: string } },
  token: { id: string; name: string; abilities: readonly string[] },
) {
  if (!byCreator(ctx)) return;
  await security(ctx, ctx.now, ctx.actor.userId, {
    title: `A token was created: ${token.name}`,
    body:
      `The access token "${token.name}" (${token.id}) was created at ${ctx.now.toISOString()} with ${token.abilities.length} abilities.\n\n` +
      `If it was not you, delete it: ${authPage("/tokens")}`,
  });
}

// billing ----------------------------------------------------------------------------------------

/** The creator's own plan: its renewal payment failed, or it was cancelled (to its period's end). */
export async function alertTierBilling(
  db: Db,
  now: Date,
  userId: string,
  change: { kind: "payment_failed"; tier: string; graceEndsAt: Date | null; dedupeKey: string } | { kind: "cancelled"; tier: string; endsAt: Date },
) {
  const alert: Omit<Alert, "class"> =
    change.kind === "payment_failed"
      ? {
          title: `The payment for your ${change.tier} plan failed`,
          body:
            `The renewal of your ${change.tier} plan could not be charged.` +
            `${change.graceEndsAt ? ` You keep it until ${change.graceEndsAt.toISOString()}; after that your teams fall back to Free.` : ""}\n\n` +
            `Update your payment method: ${authPage("/billing")}`,
          dedupeKey: change.dedupeKey,
        }
      : {
          title: `Your ${change.tier} plan is cancelled`,
          body: `Your ${change.tier} plan ends on ${change.endsAt.toISOString()} and will not renew; your teams then fall back to Free.\n\nKeep it: ${authPage("/billing")}`,
        };
  await raiseAlert(db, now, { userIds: [userId] }, { ...alert, class: "billing" });
}

// recovery ---------------------------------------------------------------------------------------

/**
 * The platform refused to give a member access to a place, or to take it away: once a day per place
 * and direction (the others waiting on that place are the same case), with the platform's words,
 * what to mend and when SubBridge tries again.
 */
export async function alertStuckAccess(
  ctx: DomainContext,
  stuck: {
    projectId: string;
    resourceId: string;
    title: string;
    memberId: string;
    giving: boolean;
    platform: string;
    refusal: string;
    remedy: string;
    retryAt: Date;
  },
) {
  const member = (await membersTable.rows(ctx).where({ id: stuck.memberId }).first()) as MemberRow;
  const project = await projectOf(ctx, stuck.projectId);
  const who = memberName(member);
  const what = stuck.giving
    ? `${who} is owed access to "${stuck.title}" in ${project.name}, and ${stuck.platform} refused to give it`
    : `${who} has no membership in ${project.name} any more, and ${stuck.platform} refused to take away their access to "${stuck.title}"`;
  await raiseForProject(ctx, stuck.projectId, {
    class: "recovery",
    title: stuck.giving ? `Access not given: ${who} is waiting for ${stuck.title}` : `Access not removed: ${who} still has ${stuck.title}`,
    body:
      `${what}: ${stuck.refusal}\n\nWhat to do: ${stuck.remedy}\n\n` +
      `SubBridge tries again by itself (next at ${stuck.retryAt.toISOString()}) and ${stuck.giving ? "gives the access" : "takes the access away"} as soon as ${stuck.platform} lets it. ` +
      `Other members of this place wait the same way; this alert comes at most once a day per place.`,
    dedupeKey: `access-stuck:${stuck.giving ? "give" : "remove"}:${stuck.resourceId}:${ctx.now.toISOString().slice(0, 10)}`,
  });
}

/** A ban the platform would not apply: the member may still be inside; once a day per project. */
export async function alertStuckBan(
  ctx: DomainContext,
  stuck: { projectId: string; memberId: string; platform: string; places: readonly string[]; refusal: string; remedy: string; retryAt: Date },
) {
  const member = (await membersTable.rows(ctx).where({ id: stuck.memberId }).first()) as MemberRow;
  const project = await projectOf(ctx, stuck.projectId);
  const who = memberName(member);
  await raiseForProject(ctx, stuck.projectId, {
    class: "recovery",
    title: `Ban not applied: ${who} may still be in ${project.name}`,
    body:
      `${who} is banned from ${project.name}, and ${stuck.platform} refused to remove them: ${stuck.refusal}\n\n` +
      `Places: ${stuck.places.length ? stuck.places.join(", ") : "(none but the member's invite links)"}.\n\nWhat to do: ${stuck.remedy}\n\n` +
      `SubBridge tries again by itself (next at ${stuck.retryAt.toISOString()}). This alert comes at most once a day per project.`,
    dedupeKey: `ban-stuck:${stuck.projectId}:${ctx.now.toISOString().slice(0, 10)}`,
  });
}

/**
 * A drift sweep held a mass removal (connectors/drift.ts): it would have taken a gated role from
 * `count` of its `holders` at once, and took it from none. Once per hold.
 */
export async function alertRemovalHold(
  ctx: DomainContext,
  held: { holdId: string; projectId: string; connectorKey: string; platform: string; title: string; count: number; holders: number },
) {
  const project = await projectOf(ctx, held.projectId);
  const holds = `/v1/projects/${held.projectId}/connectors/${held.connectorKey}/removal-holds`;
  await raiseForProject(ctx, held.projectId, {
    class: "recovery",
    title: `${project.name}: ${held.count} removals of ${held.title} held for you`,
    body:
      `${held.platform} shows ${held.count} of the ${held.holders} members holding ${held.title} without a paid grant that covers it. ` +
      `Taking it from so many at once looks like an outage or a mistake rather than ordinary churn, so SubBridge took it from no one.\n\n` +
      `What to do: in the dashboard, under "Removals on hold" on the project's Connectors page, confirm the hold to remove the role from those members, or cancel it ` +
      `to leave them as they are (SubBridge will not hold the same members again). Over the API: ` +
      `POST ${apiAddress(`${holds}/${held.holdId}/confirm`)} or POST ${apiAddress(`${holds}/${held.holdId}/cancel`)}.`,
    dedupeKey: `removal-hold:${held.holdId}`,
  });
}

/** The creator disconnected SubBridge from their Stripe account: card payments stopped; what to do. */
export async function alertStripeDisconnected(ctx: DomainContext, disconnected: { projectId: string; account: string; methodId: string }) {
  const project = await projectOf(ctx, disconnected.projectId);
  await raiseForProject(ctx, disconnected.projectId, {
    class: "recovery",
    title: `${project.name}: Stripe was disconnected`,
    body:
      `SubBridge no longer has access to the Stripe account ${disconnected.account} (it was disconnected in Stripe), so ${project.name} ` +
      `takes no card payments: its Stripe payment method is turned off and new members cannot pay by card.\n\n` +
      `What to do: connect Stripe again on ${authPage("/payments")}. Subscriptions already paid keep their access until their period ` +
      `ends; SubBridge cannot see their renewals while Stripe is disconnected.`,
    dedupeKey: `stripe-disconnected:${disconnected.methodId}`,
  });
}

// security: payments --------------------------------------------------------------------------------

/**
 * A provider's report named one of the project's checkouts or subscriptions and did not match it
 * (payments/binding.ts): it granted nothing. Once per report (the inbox keeps it); `refunding` when
 * what it took is being given back from the account of ours that received it.
 */
export async function alertPaymentMismatch(
  ctx: DomainContext,
  mismatch: { projectId: string; provider: string; eventId: string; named: string; reason: string; refunding: boolean },
) {
  const project = await projectOf(ctx, mismatch.projectId);
  await raiseForProject(ctx, mismatch.projectId, {
    class: "security",
    title: `${project.name}: a payment report that did not match was refused`,
    body:
      `A ${mismatch.provider} report claimed to pay for ${mismatch.named} in ${project.name}, but ${mismatch.reason}. ` +
      `It granted nothing: no subscription, no access, no sale recorded.` +
      `${mismatch.refunding ? " What it took is being refunded from the account that received it." : ""}\n\n` +
      `Someone may be trying to get access without paying the plan's price. Nothing needs doing unless this repeats; ` +
      `the report is kept as ${mismatch.eventId}. The project's payments: ${authPage(`/payments/projects/${mismatch.projectId}/payments`)}`,
    dedupeKey: `payment-mismatch:${mismatch.provider}:${mismatch.eventId}`,
  });
}
