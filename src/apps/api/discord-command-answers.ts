// What the Discord bot answers each slash command with (discord-interactions.ts receives them; the
// definitions are modules/connectors/bot/discord-commands.ts). Each reuses what the Telegram bot and
// the portal do: the published plans and the member's holdings as the portal shows them, the
// /cancel of the Telegram bot, the access-code redemption, the support relay, and the team's reply
// as the REST operation sends it. Answers are short plain text.
import type { Logger } from "pino";
import { createDomainContext, type Actor } from "../../db/tenant.ts";
import { ApiError } from "../../errors.ts";
import { redeemAccessCode } from "../../modules/access-codes/redeem.ts";
import { adminOf, labelsById } from "../../modules/connectors/bot/admin.ts";
import { runCancelCommand } from "../../modules/connectors/bot/cancel.ts";
import { price, projectPortal, refusalText } from "../../modules/connectors/bot/start.ts";
import { syncPlatformAccess } from "../../modules/connectors/access-sync.ts";
import type { InstallationRow } from "../../modules/connectors/tables.ts";
import { findOrCreateMember, type PlatformAccount } from "../../modules/members/members.ts";
import { surfaceRegistry } from "../../modules/payments/providers.ts";
import { resourcesTable } from "../../modules/resources/tables.ts";
import { longDay } from "../../modules/subscriptions/member-cancel.ts";
import { LIVE_STATUSES } from "../../modules/subscriptions/tables.ts";
import { receiveSupportMessage } from "../../modules/support/relay.ts";
import { replyToConversation } from "../../modules/support/replies.ts";
import type { PipelineDeps } from "../../pipeline/run.ts";
import { UUID } from "../../uuid.ts";
import { memberHoldings, publishedPlans } from "../portal/catalog.ts";

export type InteractionDeps = PipelineDeps;

export interface CommandCall {
  installation: InstallationRow;
  account: PlatformAccount;
  /** The command's options by name. */
  options: Record<string, string | number>;
  actor: Actor;
  logger: Logger;
}

/** Answered at once, with work to do once the answer is sent; or deferred: the text follows when the work is done. */
export type CommandAnswer = { content: string; after?: () => Promise<void> } | { deferred: () => Promise<string> };

type Answerer = (deps: InteractionDeps, call: CommandCall) => Promise<CommandAnswer>;

/** The ability a linked creator needs for /reply: the one reply_to_support_conversation requires. */
const REPLY_ABILITY = "support-conversation:update";
export const TEAM_ONLY = "Only the community's team can use /reply.";

const contextOf = (deps: InteractionDeps, call: CommandCall, db = deps.db) => createDomainContext(db, call.actor, deps.now());
const text = (call: CommandCall, name: string) => String(call.options[name] ?? "").trim();

/** The installation's support contact (its support_email setting), as a sentence to end an answer with; "" when none is set. */
function supportContact(call: CommandCall): string {
  const settings = (typeof call.installation.settings === "string" ? JSON.parse(call.installation.settings) : call.installation.settings) as Record<
    string,
    unknown
  >;
  const contact = typeof settings?.support_email === "string" ? settings.support_email.trim() : "";
  return contact ? `\nSupport: ${contact}` : "";
}

async function subscribe(deps: InteractionDeps, call: CommandCall): Promise<CommandAnswer> {
  const ctx = contextOf(deps, call);
  const projectId = call.installation.project_id;
  const portal = await projectPortal(ctx, projectId, deps.portalUrl);
  const plans = await publishedPlans(ctx, deps.connectors, projectId);
  if (!plans.length) return { content: `No plans are on sale yet. See the community's page: ${portal}${supportContact(call)}` };
  return { content: ["Plans:", ...plans.map(({ plan }) => `• ${plan.name}: ${price(plan)}`), `Join on ${portal}`].join("\n") + supportContact(call) };
}

/** A subscription's line: until when it gives access, and whether it renews then. */
function termsOf(subscription: { plan_name: string; status: string; ends_at: Date | null; provider?: string | null }): string {
  const until = subscription.ends_at ? longDay(subscription.ends_at) : null;
  if (subscription.status === "canceled") return `• ${subscription.plan_name}: cancelled, ends on ${until}`;
  if (!until) return `• ${subscription.plan_name}: access for life`;
  return subscription.provider ? `• ${subscription.plan_name}: renews on ${until}` : `• ${subscription.plan_name}: until ${until} (does not renew)`;
}

async function status(deps: InteractionDeps, call: CommandCall): Promise<CommandAnswer> {
  const projectId = call.installation.project_id;
  return deps.db.transaction(async (trx) => {
    const ctx = contextOf(deps, call, trx);
    const { member } = await findOrCreateMember(ctx, projectId, call.account);
    const holdings = await memberHoldings(ctx, deps.connectors, projectId, member.id);
    // A cancelled subscription still gives access until it ends.
    const current = holdings.subscriptions.filter(
      (s) => LIVE_STATUSES.includes(s.status) || (s.status === "canceled" && s.ends_at !== null && new Date(s.ends_at) > ctx.now),
    );
    if (!current.length) return { content: `You have no membership here. Join on ${await projectPortal(ctx, projectId, deps.portalUrl)}` };
    const places = holdings.grants.filter((g) => g.status !== "revoked" && g.resource);
    const access = places.map((g) => `• ${g.resource!.title}${g.status === "pending" ? " (on its way)" : ""}`);
    return { content: ["Your membership:", ...current.map(termsOf), ...(access.length ? ["Your access:", ...access] : [])].join("\n") };
  });
}

async function cancel(deps: InteractionDeps, call: CommandCall): Promise<CommandAnswer> {
  const argument = call.options.number === undefined ? "" : String(call.options.number);
  // Outside any transaction, as Telegram's: the provider is asked to stop renewals before the subscription is cancelled.
  const command = { installation: call.installation, account: call.account, argument };
  return { deferred: () => runCancelCommand(contextOf(deps, call), surfaceRegistry(deps), command) };
}

async function redeem(deps: InteractionDeps, call: CommandCall): Promise<CommandAnswer> {
  const code = text(call, "code");
  const projectId = call.installation.project_id;
  try {
    const { redemption, lines } = await deps.db.transaction(async (trx) => {
      const ctx = contextOf(deps, call, trx);
      const redemption = await redeemAccessCode(ctx, { projectId, code, member: call.account });
      const titles = await labelsById(
        ctx,
        resourcesTable,
        "title",
        redemption.grants.map((g) => g.resource_id),
      );
      const lines = redemption.grants.map((g) =>
        g.grant_mode === "creator_task"
          ? `• ${titles.get(g.resource_id)}: the team will hand this over to you personally.`
          : `• ${titles.get(g.resource_id)}: yours in a moment.`,
      );
      return { redemption, lines };
    });
    // After the commit and after the answer: giving a role is a Discord call (the connector sweep retries a failure).
    const after = () => syncPlatformAccess(deps.db, deps, deps.now(), { memberId: redemption.member.id }, call.logger).then(() => {});
    return { content: ["Your access code worked: welcome!", ...lines].join("\n"), after };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.code === "ACCESS_CODE_INVALID") return { content: "No access code of this community matches (codes are case-sensitive)." };
    const refusal = refusalText(err);
    if (!refusal) throw err;
    return { content: refusal };
  }
}

async function support(deps: InteractionDeps, call: CommandCall): Promise<CommandAnswer> {
  const receipt = await deps.db.transaction((trx) =>
    receiveSupportMessage(contextOf(deps, call, trx), deps.connectors, {
      installation: call.installation,
      account: call.account,
      text: text(call, "message"),
    }),
  );
  if (receipt.kind === "dropped") {
    const why = {
      empty: "Write your message after /support.",
      no_relay: "Support messages are not open here.",
      member_banned: "You cannot contact this community.",
    };
    return { content: why[receipt.reason] };
  }
  return { content: `Thanks, your message reached the team. They will answer you in a direct message from this bot.${supportContact(call)}` };
}

async function reply(deps: InteractionDeps, call: CommandCall): Promise<CommandAnswer> {
  const input = { installation: call.installation, account: call.account };
  const creator = await adminOf(contextOf(deps, call), input, REPLY_ABILITY);
  if (!creator) return { content: TEAM_ONLY };
  const conversation = text(call, "conversation");
  const missing = { content: `There is no conversation ${conversation.slice(0, 36)} in this community.` };
  if (!UUID.test(conversation)) return missing;
  // The REST schema refuses an empty body before replyToConversation sees it; so does this.
  if (!text(call, "message")) return { content: "Write your answer after the conversation's id." };
  try {
    // The creator is the author of the reply, as when they send it through the API.
    const actor = { ...call.actor, userId: creator };
    await deps.db.transaction((trx) =>
      replyToConversation(createDomainContext(trx, actor, deps.now()), deps.connectors, call.installation.project_id, conversation, {
        body: text(call, "message"),
      }),
    );
    return { content: "Your reply is on its way to the member." };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.code === "RESOURCE_NOT_FOUND") return missing;
    if (err.code !== "VALIDATION_FAILED") throw err;
    const field = Object.values(err.fields ?? {})[0]?.[0];
    return { content: field ? `Your reply was not sent: it ${field}.` : `Your reply was not sent: ${err.message}` };
  }
}

/** The answer to each command of DISCORD_COMMANDS, by name. */
export const COMMAND_ANSWERS: Readonly<Record<string, Answerer>> = { subscribe, status, cancel, redeem, support, reply };
