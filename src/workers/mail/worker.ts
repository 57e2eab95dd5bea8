// The mail worker: drains the outbox (src/modules/mail/queue.ts) through a sender (SMTP). It claims
// up to `concurrency` due messages, sends them at once, records each outcome under its claim, and,
// idle, looks again every `idlePollMs`. Any number of workers may run against one database (each
// process that runs the worker runs one, beside the webhook delivery worker). Time is injected:
// tests drive `sendDueMail` at a chosen `now` instead of the loop.
import type { Logger } from "pino";
import type { Db } from "../../db/tenant.ts";
import {
  claimDueMail,
  MAIL_MAX_ATTEMPTS,
  recordMailOutcomes,
  type ClaimedMail,
  type MailOutcome,
  type MailQueuePolicy,
} from "../../modules/mail/queue.ts";
import { longestSendMs, MailSendError, type MailSender } from "../../modules/mail/smtp.ts";
import { startPollingLoop } from "../polling-loop.ts";
import { recordWithinLease } from "../within-lease.ts";

export interface MailWorkerOptions {
  db: Db;
  sender: MailSender;
  logger: Logger;
  /** The right-hand side of every Message-ID (the sender's domain). */
  messageIdDomain: string;
  /** The sender's bound on each SMTP wait: the lease outlasts the longest send. */
  timeoutMs: number;
  clock?: () => Date;
  /** Messages sent at once (default 8). */
  concurrency?: number;
  /** How often an idle worker looks for due mail (default 1000 ms). */
  idlePollMs?: number;
  /** How long a claim holds its messages (default: the longest send and 30 s). */
  leaseMs?: number;
  maxAttempts?: number;
  /** Only these recipients' mail (tests on a shared database); default everyone's. */
  recipients?: readonly string[];
}

export interface MailWorker {
  /** Claims nothing more, lets the sends in flight finish and records them. */
  stop(): Promise<void>;
}

interface Settings {
  leaseMs: number;
  maxAttempts: number;
  policy: MailQueuePolicy;
}

function settingsOf(o: MailWorkerOptions): Settings {
  const maxAttempts = o.maxAttempts ?? MAIL_MAX_ATTEMPTS;
  return {
    leaseMs: o.leaseMs ?? longestSendMs(o.timeoutMs) + 30_000,
    maxAttempts,
    policy: { maxAttempts, messageIdDomain: o.messageIdDomain, recipients: o.recipients },
  };
}

async function sendOne(o: MailWorkerOptions, mail: ClaimedMail): Promise<MailOutcome> {
  try {
    await o.sender.send(mail);
    return { mail, result: "sent" };
  } catch (err) {
    const permanent = err instanceof MailSendError && err.permanent;
    o.logger.warn({ mail_id: mail.id, attempt: mail.attempt, permanent, err: (err as Error).message }, "mail not sent");
    return { mail, result: permanent ? "failed" : "retry", error: (err as Error).message };
  }
}

/** Claims, sends and records one batch at `now`; answers the outcomes recorded (empty: nothing was due). */
async function sendBatch(o: MailWorkerOptions, s: Settings, now: Date, limit: number, recordAt: () => Date): Promise<MailOutcome[]> {
  const leaseEndsAtMs = Date.now() + s.leaseMs;
  const batch = await claimDueMail(o.db, now, limit, s.leaseMs, s.policy);
  if (batch.length === 0) return [];
  const outcomes = await Promise.all(batch.map((mail) => sendOne(o, mail)));
  return recordWithinLease(() => recordMailOutcomes(o.db, outcomes, recordAt(), s.maxAttempts), leaseEndsAtMs);
}

/** Sends everything due at `now`, batch after batch, until nothing is due; answers the outcomes. */
export async function sendDueMail(options: MailWorkerOptions & { now: Date }): Promise<MailOutcome[]> {
  const s = settingsOf(options);
  const all: MailOutcome[] = [];
  for (;;) {
    const outcomes = await sendBatch(options, s, options.now, options.concurrency ?? 8, () => options.now);
    if (outcomes.length === 0) return all;
    all.push(...outcomes);
  }
}

export function startMailWorker(options: MailWorkerOptions): MailWorker {
  const s = settingsOf(options);
  const clock = options.clock ?? (() => new Date());
  const idlePollMs = options.idlePollMs ?? 1_000;
  const concurrency = options.concurrency ?? 8;
  const loop = startPollingLoop({
    logger: options.logger,
    failure: "could not send the mail outbox",
    idlePollMs,
    batch: async () => (await sendBatch(options, s, clock(), concurrency, clock)).length === concurrency,
  });
  options.logger.info({ concurrency, idle_poll_ms: idlePollMs }, "mail worker started");
  return {
    async stop() {
      await loop.stop();
      options.sender.close();
      options.logger.info("mail worker stopped");
    },
  };
}
