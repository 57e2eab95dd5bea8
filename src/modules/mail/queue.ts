// The outbox as a send queue shared by any number of mail workers. A claim takes due rows with FOR
// UPDATE SKIP LOCKED (two workers never take one row) and leases them: "sending" until
// lease_expires_at. A message whose lease runs out has an unknown outcome (its worker died or hung
// mid-send) and is claimed again: delivery is at least once, never silently lost, and every copy
// carries the row's one Message-ID so a receiver can drop a duplicate (decisions.md, "## Mail").
import { randomUUID } from "node:crypto";
import { unscoped, type Db } from "../../db/tenant.ts";
import { mailOfRow, type OutboxRow } from "./outbox.ts";

export interface ClaimedMail {
  id: string;
  to: string;
  subject: string;
  body: string;
  /** The message's own links (none for a message queued before links were kept). */
  links: readonly string[];
  messageId: string;
  /** This claim's attempt, counting from 1. */
  attempt: number;
  claimId: string;
}

/** A send's result: sent, a retryable failure (4xx, network, time-out) or a permanent one (5xx). */
export type MailOutcome = { mail: ClaimedMail; result: "sent" } | { mail: ClaimedMail; result: "retry" | "failed"; error: string };

export interface MailQueuePolicy {
  /** Attempts before a message fails for good (default MAIL_MAX_ATTEMPTS). */
  maxAttempts: number;
  /** The Message-ID's right-hand side (the sender's domain). */
  messageIdDomain: string;
  /** Only these recipients' mail (tests on a shared database); default everyone's. */
  recipients?: readonly string[];
}

export const MAIL_MAX_ATTEMPTS = 8;
const FIRST_RETRY_MS = 60_000;
const LONGEST_RETRY_MS = 3_600_000;

/** The wait before attempt `attempt + 1`: one minute, doubling, at most an hour (about 4 h in all). */
export function mailRetryDelayMs(attempt: number): number {
  return Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** (attempt - 1));
}

const table = (db: Db) => unscoped(db, "mail is addressed to people, not owned by a team");

/** Claims up to `limit` due messages at `now` for `leaseMs`; a lapsed lease past the last attempt fails instead. */
export async function claimDueMail(db: Db, now: Date, limit: number, leaseMs: number, policy: MailQueuePolicy): Promise<ClaimedMail[]> {
  const claimId = randomUUID();
  const recipients = policy.recipients ?? null;
  const only = recipients ? `and lower(to_address) in (${recipients.map(() => "lower(?)").join(", ")})` : "";
  const onlyBindings = recipients ?? [];
  return table(db).transaction(async (trx) => {
    // An unknown outcome on the last attempt ends there: the message may have arrived, and sending
    // it once more would exceed the bound the operator set.
    await trx.raw(
      `update mail_outbox set status = 'failed', lease_expires_at = null, claim_id = null,
         last_error = 'the outcome of the last attempt is unknown (its worker stopped mid-send)'
       where status = 'sending' and lease_expires_at <= ? and attempts >= ? ${only}`,
      [now, policy.maxAttempts, ...onlyBindings],
    );
    const rows = (
      await trx.raw(
        `with due as (
           select id from mail_outbox
           where ((status = 'queued' and next_attempt_at <= ?) or (status = 'sending' and lease_expires_at <= ?)) ${only}
           order by next_attempt_at, id limit ? for update skip locked)
         update mail_outbox m set status = 'sending', attempts = m.attempts + 1, lease_expires_at = ?, claim_id = ?,
           message_id = coalesce(m.message_id, '<' || m.id || '@' || ? || '>')
         from due where m.id = due.id
         returning m.id, m.to_address, m.subject, m.body, m.links, m.message_id, m.attempts`,
        [now, now, ...onlyBindings, limit, new Date(now.getTime() + leaseMs), claimId, policy.messageIdDomain],
      )
    ).rows as (OutboxRow & { message_id: string; attempts: number })[];
    return rows.map((r) => ({ ...mailOfRow(r), messageId: r.message_id, attempt: r.attempts, claimId }));
  });
}

/** Writes each outcome while its claim still holds the row; answers the outcomes recorded. */
export async function recordMailOutcomes(db: Db, outcomes: readonly MailOutcome[], now: Date, maxAttempts: number): Promise<MailOutcome[]> {
  const recorded: MailOutcome[] = [];
  for (const o of outcomes) {
    const held = table(db)("mail_outbox").where({ id: o.mail.id, claim_id: o.mail.claimId, status: "sending" });
    const release = { lease_expires_at: null, claim_id: null };
    let changed: number;
    if (o.result === "sent") changed = await held.update({ ...release, status: "sent", sent_at: now, last_error: null });
    else if (o.result === "failed" || o.mail.attempt >= maxAttempts)
      changed = await held.update({ ...release, status: "failed", last_error: o.error.slice(0, 1000) });
    else
      changed = await held.update({
        ...release,
        status: "queued",
        next_attempt_at: new Date(now.getTime() + mailRetryDelayMs(o.mail.attempt)),
        last_error: o.error.slice(0, 1000),
      });
    if (changed > 0) recorded.push(o);
  }
  return recorded;
}

/** One message's sending state (tests and the operator). */
export async function mailState(db: Db, id: string) {
  return (await table(db)("mail_outbox").where({ id }).first("status", "attempts", "next_attempt_at", "message_id", "last_error", "sent_at")) as
    | { status: string; attempts: number; next_attempt_at: Date; message_id: string | null; last_error: string | null; sent_at: Date | null }
    | undefined;
}
