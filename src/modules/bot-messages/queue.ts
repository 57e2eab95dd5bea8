// The bot messages as a send queue shared by any number of workers, as the mail outbox is: a claim
// takes due rows with FOR UPDATE SKIP LOCKED and leases them ("sending" until lease_expires_at); a
// lease that runs out (its worker died mid-send) is claimed again, so a message is sent at least
// once. Pacing may hand a claimed message back unsent, due when its slot comes.
import { randomUUID } from "node:crypto";
import { unscoped, type Db } from "../../db/tenant.ts";
import { storedPhrases, type Phrase } from "./phrases.ts";

export interface ClaimedBotMessage {
  id: string;
  installation_id: string;
  connector_key: string;
  recipient: string;
  /** The English text (a creator's own words, or the rendering of `phrases`). */
  text: string;
  /** Lines to translate into the sending installation's language; null for plain text. */
  phrases: Phrase[] | null;
  /** "log": the recipient is a channel (postToChannel), not a person. */
  purpose: string;
  /** Attempts made before this claim. */
  attempts: number;
  claimId: string;
}

/** A send's result: sent; to try again (the platform unreachable); failed for good; or not yet (pacing). */
export type BotMessageOutcome =
  | { message: ClaimedBotMessage; result: "sent" }
  | { message: ClaimedBotMessage; result: "retry" | "failed"; error: string }
  | { message: ClaimedBotMessage; result: "deferred"; untilMs: number };

export const BOT_MESSAGE_MAX_ATTEMPTS = 8;
const FIRST_RETRY_MS = 30_000;
const LONGEST_RETRY_MS = 3_600_000;

/** The wait before attempt `attempt + 1`: 30 s, doubling, at most an hour. */
export function botMessageRetryDelayMs(attempt: number): number {
  return Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** (attempt - 1));
}

const queue = (db: Db) => unscoped(db, "the bot message workers send every team's queued messages");

/** Claims up to `limit` due messages at `now` for `leaseMs`, oldest first (only `installations`' when given: tests). */
export async function claimDueBotMessages(
  db: Db,
  now: Date,
  limit: number,
  leaseMs: number,
  installations?: readonly string[],
): Promise<ClaimedBotMessage[]> {
  const claimId = randomUUID();
  const only = installations ? `and installation_id in (${installations.map(() => "?").join(", ") || "null"})` : "";
  const rows = (
    await queue(db).raw(
      `with due as (
         select id from bot_messages
         where ((status = 'queued' and next_attempt_at <= ?) or (status = 'sending' and lease_expires_at <= ?)) ${only}
         order by next_attempt_at, seq limit ? for update skip locked)
       update bot_messages b set status = 'sending', lease_expires_at = ?, claim_id = ?
       from due where b.id = due.id
       returning b.id, b.installation_id, b.connector_key, b.recipient, b.text, b.phrases, b.purpose, b.attempts, b.next_attempt_at, b.seq`,
      [now, now, ...(installations ?? []), limit, new Date(now.getTime() + leaseMs), claimId],
    )
  ).rows as (Omit<ClaimedBotMessage, "claimId"> & { next_attempt_at: Date; seq: string })[];
  // Oldest first whatever order RETURNING gives: pacing hands out slots in this order.
  rows.sort((a, b) => +new Date(a.next_attempt_at) - +new Date(b.next_attempt_at) || Number(BigInt(a.seq) - BigInt(b.seq)));
  return rows.map((r) => ({
    id: r.id,
    installation_id: r.installation_id,
    connector_key: r.connector_key,
    recipient: r.recipient,
    text: r.text,
    phrases: storedPhrases(r.phrases),
    purpose: r.purpose,
    attempts: r.attempts,
    claimId,
  }));
}

/** Writes each outcome while its claim still holds the row; answers the outcomes recorded. */
export async function recordBotMessageOutcomes(db: Db, outcomes: readonly BotMessageOutcome[], now: Date): Promise<BotMessageOutcome[]> {
  const recorded: BotMessageOutcome[] = [];
  const release = { lease_expires_at: null, claim_id: null };
  for (const o of outcomes) {
    const held = queue(db)("bot_messages").where({ id: o.message.id, claim_id: o.message.claimId, status: "sending" });
    const attempts = o.message.attempts + 1;
    let update: Record<string, unknown>;
    if (o.result === "deferred") update = { ...release, status: "queued", next_attempt_at: new Date(now.getTime() + o.untilMs) };
    else if (o.result === "sent") update = { ...release, status: "sent", attempts, sent_at: now, last_error: null };
    else if (o.result === "failed" || attempts >= BOT_MESSAGE_MAX_ATTEMPTS)
      update = { ...release, status: "failed", attempts, last_error: o.error.slice(0, 1000) };
    else
      update = {
        ...release,
        status: "queued",
        attempts,
        next_attempt_at: new Date(now.getTime() + botMessageRetryDelayMs(attempts)),
        last_error: o.error.slice(0, 1000),
      };
    if ((await held.update(update)) > 0) recorded.push(o);
  }
  return recorded;
}
