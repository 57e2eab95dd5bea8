// Telegram's updates for an installation's bot: POST {base_url}/connectors/telegram/{installation}/updates,
// the address the bot's webhook is set to at install (setWebhook with secret_token). Telegram proves
// itself with the X-Telegram-Bot-Api-Secret-Token header (updatesSecret: an HMAC of the
// installation id under APP_KEY). A /start message runs the
// bot's start handling (openStart) as a webhook-triggered action, the bot answers in the chat, and
// the member's platform access is synced at once (the connector sweep retries whatever fails). A
// /stop and /resume set a member's opt-out of broadcasts (broadcasts/opt-out.ts). A
// private message that is no command is a support message (relay.ts of the Support area), also
// forwarded to the team's linked creators; /help and the creator commands are creator-commands.ts's. Payments
// (a pre-checkout query, a successful or refunded Stars payment) are telegram-payments.ts's; a
// chat_member join is recorded for the connector sweep to check (invite-links.ts); a
// chat_join_request is approved or declined by the requester's grants (join-requests.ts); a my_chat_member
// change of the bot's own standing in a chat updates the chats it administers (bot-chats.ts) and
// probes the installation at once (recovery/probes.ts). The bot answers in the member's Telegram
// language when the package ships it, else in the installation's `language` (bot/texts.ts).
// Telegram retries an update until it gets a 2xx, so every update that was read answers 200, also
// one the bot ignores.
import type Koa from "koa";
import type { Logger } from "pino";
import { commitEffectsOf, createDomainContext, unscoped, type Actor, type CommitEffect } from "../../db/tenant.ts";
import { ApiError, emptyFieldErrors } from "../../errors.ts";
import { safeEqual } from "../../security/crypto.ts";
import { openStart } from "../../modules/connectors/bot/start.ts";
import { deliverStartReply } from "../../modules/connectors/bot/reply.ts";
import { installationSession, updatesPath, updatesSecret } from "../../modules/connectors/bot/session.ts";
import { answeringFor } from "../../modules/connectors/acting-installation.ts";
import { syncPlatformAccess } from "../../modules/connectors/access-sync.ts";
import type { InstallationRow } from "../../modules/connectors/tables.ts";
import type { PipelineDeps } from "../../pipeline/run.ts";
import { readBodyText } from "../../http/body.ts";
import type { RequestState } from "../../http/request.ts";
import { UUID } from "../../uuid.ts";
import { collectUnsafeValues, nestsDeeperThan } from "../../pipeline/input-safety.ts";
import { receiveSupportMessage } from "../../modules/support/relay.ts";
import type { PlatformAccount } from "../../modules/members/members.ts";
import { telegramPayments } from "./telegram-payments.ts";
import { cancelCommandOf, runCancelCommand } from "../../modules/connectors/bot/cancel.ts";
import { surfaceRegistry } from "../../modules/payments/providers.ts";
import { recordTelegramJoin } from "../../modules/connectors/invite-links.ts";
import { answerTelegramJoinRequest } from "../../modules/connectors/join-requests.ts";
import { probeOnStandingChange } from "../../modules/recovery/probes.ts";
import { learnTelegramChat } from "../../modules/connectors/bot-chats.ts";
import { installationTexts, type BotTexts } from "../../modules/connectors/bot/texts.ts";
import { broadcastCommandOf, runBroadcastCommand } from "../../modules/broadcasts/opt-out.ts";
import { answerBotCommand } from "../../modules/connectors/bot/creator-commands.ts";
import { relayToCreators } from "../../modules/connectors/bot/creator-relay.ts";
import { runPlatformTasks } from "../../modules/connectors/platform-tasks.ts";

export const TELEGRAM_UPDATES_PATH = updatesPath("telegram", ":installation");

interface TelegramMessage {
  text?: unknown;
  chat?: { id?: unknown; type?: unknown };
  from?: { id?: unknown; first_name?: unknown; last_name?: unknown; username?: unknown; is_bot?: unknown; language_code?: unknown };
  /** The message this one answers (a creator replying to a relayed support message). */
  reply_to_message?: { text?: unknown; from?: { is_bot?: unknown } };
}

/** The start payload of a /start message ("" for a bare /start), or null for any other message. */
export function startPayloadOf(text: string): string | null {
  const match = /^\/start(?:@\w+)?(?:\s+(\S+))?\s*$/.exec(text);
  return match ? (match[1] ?? "") : null;
}

function displayName(from: NonNullable<TelegramMessage["from"]>): string | null {
  const full = [from.first_name, from.last_name].filter((p): p is string => typeof p === "string" && p.length > 0).join(" ");
  return full || (typeof from.username === "string" ? from.username : null);
}

/** The fields of an update holding what no text column stores (a NUL, an unpaired surrogate), or [] when it has none (Discord's interactions too). */
export function unstorableFields(update: unknown): string[] {
  if (nestsDeeperThan(update)) return ["body"];
  const fields = emptyFieldErrors();
  collectUnsafeValues(update, "", fields);
  return Object.keys(fields);
}

export function telegramUpdates(deps: PipelineDeps & { logger: Logger }): Koa.Middleware {
  return async (ctx) => {
    const id = String(ctx.params?.installation ?? "");
    const notFound = () => new ApiError("RESOURCE_NOT_FOUND", "No installation is reachable at this address.");
    if (!UUID.test(id)) throw notFound();
    const offered = ctx.get("x-telegram-bot-api-secret-token");
    if (!offered || !safeEqual(offered, updatesSecret(deps.appKey, id))) throw notFound();
    const db = unscoped(deps.db, "Telegram's updates: the installation is found by its id, proven by its secret token");
    const found = (await db("connector_installations").where({ id, connector_key: "telegram" }).first()) as InstallationRow | undefined;
    if (!found) throw notFound();
    // A standby that took over answers the members of the project it stands in for.
    const installation = await answeringFor(db, found);
    const { text } = await readBodyText(ctx);
    let update: { message?: TelegramMessage } | null = null;
    try {
      update = JSON.parse(text) as { message?: TelegramMessage };
    } catch {
      update = null;
    }
    ctx.status = 200;
    ctx.body = {};
    const unstorable = unstorableFields(update);
    if (unstorable.length) {
      // No column stores a NUL: a charge id, a name or a message holding one answered 500, and Telegram retried it for a day.
      deps.logger.warn({ installation_id: id, fields: unstorable }, "telegram update ignored: it holds text that cannot be stored");
      return;
    }
    if (await telegramPayments(deps, installation, update, deps.now())) return;
    if (await answerTelegramJoinRequest(deps.db, deps, installation, update, deps.now(), deps.logger)) return;
    if (await recordTelegramJoin(deps.db, installation, update, deps.now())) return;
    await learnTelegramChat(deps.db, installation, update, deps.now(), (ctx.state as RequestState).requestId);
    try {
      if (await probeOnStandingChange(deps.db, deps, installation, update, deps.now(), deps.logger)) return;
    } catch (err) {
      // The update is read; the next scheduled probe finds what this one could not.
      deps.logger.warn({ installation_id: id, err }, "probe after a change of the bot's standing failed");
      return;
    }
    const message = update?.message;
    const from = message?.from;
    if (typeof message?.text !== "string" || message.chat?.type !== "private" || typeof from?.id !== "number" || from.is_bot === true) return;
    const payload = startPayloadOf(message.text);
    const now = deps.now();
    const account = { connectorKey: "telegram", externalUserId: String(from.id), displayName: displayName(from) };
    const texts = installationTexts(deps.connectors.packages, installation, typeof from.language_code === "string" ? from.language_code : null);
    const actor: Actor = {
      userId: null,
      teamId: installation.team_id,
      projectIds: null,
      kind: "webhook",
      credentialKind: null,
      requestId: (ctx.state as RequestState).requestId,
    };
    const broadcasts = broadcastCommandOf(message.text);
    if (broadcasts !== null) {
      // /stop and /resume: the member's opt-out of broadcasts (modules/broadcasts/opt-out.ts).
      const text = await deps.db.transaction((trx) =>
        runBroadcastCommand(createDomainContext(trx, actor, now), installation.project_id, account, broadcasts),
      );
      await installationSession(deps, installation).sendMessage(account.externalUserId, text);
      return;
    }
    const cancel = cancelCommandOf(message.text);
    if (cancel !== null) {
      // Outside any transaction: the provider is asked to stop renewals before the subscription is cancelled.
      const command = { installation, account, argument: cancel, texts };
      const text = await runCancelCommand(createDomainContext(deps.db, actor, now), surfaceRegistry(deps), command);
      await installationSession(deps, installation).sendMessage(account.externalUserId, text);
      return;
    }
    if (payload === null) {
      // Another command (or a creator's reply to a relayed message) is answered; any other text is a support message.
      const quoted = message.reply_to_message;
      const replyTo = typeof quoted?.text === "string" && quoted.from?.is_bot === true ? quoted.text : null;
      const answer = await answerBotCommand(deps, { installation, account, actor, text: message.text, replyTo });
      if (answer === null) await relaySupportMessage(deps, installation, { account, text: message.text, actor, now, texts });
      else await sendAnswer(deps, installation, account.externalUserId, answer);
      return;
    }
    let effects: readonly CommitEffect[] = [];
    const reply = await deps.db.transaction(async (trx) => {
      const ctx = createDomainContext(trx, actor, now);
      const reply = await openStart(ctx, { installation, account, payload: payload || null, portalUrl: deps.portalUrl, texts });
      effects = commitEffectsOf(ctx);
      return reply;
    });
    try {
      // After the commit: a plan's Stars invoice is a Bot API call, never made inside the transaction.
      await deliverStartReply(deps, installation, String(from.id), reply, deps.logger, texts);
      if (reply.outcome.kind === "redeemed")
        await syncPlatformAccess(deps.db, deps, now, { memberId: reply.outcome.redemption.member.id }, deps.logger);
    } catch (err) {
      // The change is committed; the answer or the access follows on the connector sweep.
      deps.logger.warn({ installation_id: id, err }, "bot reply or access sync failed after a start");
    }
    // A linked creator's command menu (platform-tasks.ts): a task that fails is kept for the connectors job.
    const taskIds = effects.flatMap((effect) => (effect.kind === "platform-tasks" ? effect.taskIds : []));
    if (taskIds.length) await runPlatformTasks(deps.db, deps, now, { taskIds }, deps.logger);
  };
}

/** The text the bot answers the first message of a new support conversation with. */
export const SUPPORT_ACKNOWLEDGEMENT = "Thanks, your message reached the team. They will answer you here.";

/** A member's private message to the bot: the project's support relay, acknowledged when it opens a conversation. */
async function relaySupportMessage(
  deps: PipelineDeps & { logger: Logger },
  installation: InstallationRow,
  input: { account: PlatformAccount; text: string; actor: Actor; now: Date; texts: BotTexts },
): Promise<void> {
  const receipt = await deps.db.transaction(async (trx) => {
    const ctx = createDomainContext(trx, input.actor, input.now);
    const receipt = await receiveSupportMessage(ctx, deps.connectors, { installation, account: input.account, text: input.text });
    if (receipt.kind === "dropped") return receipt;
    // The team's linked creators get the message in their chat with this bot (creator-relay.ts).
    const { conversation, message } = receipt;
    const member = conversation.member_display_name ?? input.account.displayName ?? input.account.externalUserId;
    const relay = { conversationId: conversation.id, messageId: message.id, member, body: message.body, opened: receipt.kind === "opened" };
    await relayToCreators(ctx, { installation, sender: input.account.externalUserId, ...relay });
    return receipt;
  });
  if (receipt.kind !== "opened") return;
  try {
    await installationSession(deps, installation).sendMessage(input.account.externalUserId, input.texts.t(SUPPORT_ACKNOWLEDGEMENT));
  } catch (err) {
    // The conversation is recorded; only the acknowledgement is lost.
    deps.logger.warn({ installation_id: installation.id, err }, "support acknowledgement failed");
  }
}

/** The bot's answer to a command; a failed send is logged, not retried (Telegram would run the command again). */
async function sendAnswer(deps: PipelineDeps & { logger: Logger }, installation: InstallationRow, chat: string, text: string): Promise<void> {
  try {
    await installationSession(deps, installation).sendMessage(chat, text);
  } catch (err) {
    deps.logger.warn({ installation_id: installation.id, err }, "the answer to a bot command failed");
  }
}
