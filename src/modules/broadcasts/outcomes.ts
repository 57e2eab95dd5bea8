// A broadcast recipient's status follows its bot message: the bot message worker hands each
// recorded outcome of purpose broadcast here (src/workers/bot-messages/outcome-hooks.ts). Sent is
// sent; a final refusal is blocked when the platform says the person blocked the bot (or left it),
// else failed; a retry stays queued until the outbox gives up.
import { unscoped, type Db } from "../../db/tenant.ts";
import { BOT_MESSAGE_MAX_ATTEMPTS, type BotMessageOutcome } from "../bot-messages/queue.ts";

/** The platforms' words for a person the bot may no longer write to (Telegram's 403s, Discord's 50007). */
const BLOCKED = /bot was blocked by the user|user is deactivated|bot can't initiate conversation|cannot send messages to this user/i;

export function blockedTheBot(error: string): boolean {
  return BLOCKED.test(error);
}

const recipients = (db: Db) =>
  unscoped(db, "the bot message workers record every team's broadcast outcomes by bot message id")("broadcast_recipients");

export async function recordBroadcastOutcomes(db: Db, outcomes: readonly BotMessageOutcome[], now: Date): Promise<void> {
  const sent = outcomes.filter((o) => o.result === "sent").map((o) => o.message.id);
  if (sent.length)
    await recipients(db)
      .whereIn("bot_message_id", sent)
      .where({ status: "queued" })
      .update({ status: "sent", sent_at: now, error: null, updated_at: now });
  for (const o of outcomes) {
    if (o.result === "sent" || o.result === "deferred") continue;
    if (o.result === "retry" && o.message.attempts + 1 < BOT_MESSAGE_MAX_ATTEMPTS) continue;
    const status = blockedTheBot(o.error) ? "blocked" : "failed";
    await recipients(db)
      .where({ bot_message_id: o.message.id, status: "queued" })
      .update({ status, error: o.error.slice(0, 1000), updated_at: now });
  }
}
