// A delivery worker: keeps up to `concurrency` attempts in flight, claiming due deliveries as slots
// free up (./delivery-queue.ts: fairly, within the network's in-flight caps per endpoint and per
// team), and writes outcomes back in batches as attempts finish. A claim cut short by the caps is
// tried again when an outcome is recorded (its lease freed a place). Idle, it looks for due
// deliveries every `idlePollMs`. Any number of workers may run against one database;
// each process that runs the worker (SURFACES=worker, or npm start) runs one. Time is injected: the
// clock decides what is due, and tests drive `deliverDue` at a chosen `now` instead of the loop.
import type { Logger } from "pino";
import type { Database } from "../../db/database.ts";
import { countDeliveryAttempt } from "../../observability/metrics.ts";
import { grantsAbility, teamGrantsOf } from "../../modules/roles/grants.ts";
import { DNS_TIMEOUT_MS, withSharedLookups, type WebhookNetwork } from "../../modules/webhooks/address-guard.ts";
import { attemptDelivery, type AttemptEnvironment } from "../../modules/webhooks/attempt.ts";
import { claimDueDeliveries, recordOutcomes, type ClaimedDelivery, type DeliveryOutcome } from "../../modules/webhooks/delivery-queue.ts";
import { webhookLimits, type WebhookLimits } from "../../modules/webhooks/limits.ts";
import { AgentPool } from "../../modules/webhooks/send.ts";
import { activeSigningKey, type WebhookSigningKey } from "../../modules/webhooks/signing-keys.ts";

/** How often an idle worker looks for due deliveries: a due retry waits at most about this long. */
export const DEFAULT_IDLE_POLL_MS = 250;

export interface DeliveryWorkerOptions {
  db: Database;
  appKey: Buffer;
  network: WebhookNetwork;
  release: string;
  logger: Logger;
  clock?: () => Date;
  /** Attempts in flight at once (default 64). */
  concurrency?: number;
  /** How often an idle worker looks for due deliveries (default DEFAULT_IDLE_POLL_MS). */
  idlePollMs?: number;
  /** How long a claim holds its deliveries (default: the request time-out, DNS, and 30 s). */
  leaseMs?: number;
  /** Serves these teams' deliveries only (tests on a shared database); default every team's. */
  teams?: readonly string[];
}

export interface DeliveryWorker {
  /** Claims nothing more, lets the attempts in flight finish and records them. */
  stop(): Promise<void>;
}

interface Settings {
  db: Database;
  env: AttemptEnvironment;
  leaseMs: number;
  logger: Logger;
  claim: { teams?: readonly string[]; limits: WebhookLimits };
}

function settingsOf(options: DeliveryWorkerOptions): Settings {
  const limits = webhookLimits(options.network.limits);
  return {
    db: options.db,
    logger: options.logger,
    leaseMs: options.leaseMs ?? options.network.timeoutMs + DNS_TIMEOUT_MS + 30_000,
    claim: { teams: options.teams, limits },
    env: {
      appKey: options.appKey,
      network: withSharedLookups(options.network),
      release: options.release,
      agents: new AgentPool(options.network.timeoutMs, limits.inFlightPerTeam),
    },
  };
}

/**
 * Whether each claimed delivery may carry subscribers' contact details: its endpoint's owner holds
 * project-user:view on the event's project (asked once per owner and project in a batch).
 */
async function contactPermissions(db: Database, batch: readonly ClaimedDelivery[]): Promise<Map<string, boolean>> {
  const answers = new Map<string, boolean>();
  for (const d of batch) {
    const key = `${d.team_id} ${d.endpoint.created_by_user_id} ${d.event.project_id}`;
    if (answers.has(key)) continue;
    const grants = await teamGrantsOf(db, d.endpoint.created_by_user_id, d.team_id);
    answers.set(key, grants !== null && grantsAbility(grants, "project-user:view", d.event.project_id));
  }
  return answers;
}

/** Attempts every delivery of `batch`; `settled` hears each one's outcome (null: none to record). */
async function attemptAll(s: Settings, batch: readonly ClaimedDelivery[], now: Date, settled: (o: DeliveryOutcome | null) => void) {
  let contacts = new Map<string, boolean>();
  try {
    contacts = await contactPermissions(s.db, batch);
  } catch (err) {
    // Unknown permissions withhold the contacts: the delivery goes out without them.
    s.logger.error({ err }, "could not read webhook endpoint owners' permissions");
  }
  let signingKey: WebhookSigningKey;
  try {
    signingKey = await activeSigningKey(s.db, s.env.appKey, now);
  } catch (err) {
    // Nothing leaves unsigned: the batch's leases run out and the deliveries are claimed again.
    s.logger.error({ err }, "could not load the webhook signing key");
    for (const _ of batch) settled(null);
    return;
  }
  await Promise.all(
    batch.map(async (d) => {
      const subscriberContacts = contacts.get(`${d.team_id} ${d.endpoint.created_by_user_id} ${d.event.project_id}`) ?? false;
      let outcome: DeliveryOutcome | null = null;
      try {
        outcome = await attemptDelivery(d, s.env, { now, subscriberContacts, signingKey });
      } catch (err) {
        // Not the endpoint's fault (e.g. a secret that no longer opens): the lease runs out and
        // another attempt is made then; nothing is recorded against the endpoint.
        s.logger.error({ err, delivery_id: d.id }, "webhook delivery attempt failed unexpectedly");
      } finally {
        settled(outcome && countDeliveryAttempt(outcome));
      }
    }),
  );
}

/**
 * Delivers everything due at `now` (of the teams named, or every team's), batch after batch, until
 * nothing is due; answers the outcomes. The one-shot form of the worker: tests drive it at an
 * injected time, each for its own team on a database other tests share.
 */
export async function deliverDue(options: DeliveryWorkerOptions & { now: Date; batchSize?: number }): Promise<DeliveryOutcome[]> {
  const s = settingsOf(options);
  const limit = options.batchSize ?? 100;
  const all: DeliveryOutcome[] = [];
  try {
    for (;;) {
      const batch = await claimDueDeliveries(s.db, options.now, limit, s.leaseMs, s.claim);
      // An empty claim ends it: a short one may only have met the in-flight caps.
      if (batch.length === 0) return all;
      const outcomes: DeliveryOutcome[] = [];
      await attemptAll(s, batch, options.now, (o) => o && outcomes.push(o));
      await recordOutcomes(s.db, outcomes, options.now);
      all.push(...outcomes);
    }
  } finally {
    await s.env.agents.close();
  }
}

export function startDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const s = settingsOf(options);
  const clock = options.clock ?? (() => new Date());
  const concurrency = options.concurrency ?? 64;
  const idlePollMs = options.idlePollMs ?? DEFAULT_IDLE_POLL_MS;
  let running = true;
  let inFlight = 0;
  let pending: DeliveryOutcome[] = [];
  let flushing: Promise<void> | null = null;
  // What ends a wait early: a finished attempt (waiting for free slots), or a recorded outcome
  // (after a claim the caps cut short: recording frees a lease, so a place). stop() wakes any wait.
  let wake: (() => void) | null = null;
  let wakeOn: "settled" | "recorded" | null = null;
  // Set when an outcome is recorded while a claim runs: that claim may not have seen the freed place.
  let recordedSinceClaim = false;
  const nudge = () => {
    wake?.();
    wake = null;
  };
  const pause = (ms: number, until: typeof wakeOn) =>
    new Promise<void>((resolve) => {
      wakeOn = until;
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  // Claim when a quarter of the slots are free (or none is busy): fewer, larger claims under load.
  const claimAt = Math.max(1, Math.ceil(concurrency / 4));

  const flush = () => {
    if (pending.length === 0) return flushing ?? Promise.resolve();
    flushing ??= (async () => {
      while (pending.length > 0) {
        const outcomes = pending;
        pending = [];
        try {
          const disabled = await recordOutcomes(s.db, outcomes, clock());
          if (disabled.length > 0) s.logger.warn({ endpoints: disabled }, "webhook endpoints disabled after consecutive failures");
          recordedSinceClaim = true;
          if (wakeOn === "recorded") nudge();
        } catch (err) {
          // Unrecorded outcomes are retried when their leases run out: delivered at least once.
          s.logger.error({ err, outcomes: outcomes.length }, "could not record webhook delivery outcomes");
        }
      }
      flushing = null;
    })();
    return flushing;
  };

  const loop = (async () => {
    while (running) {
      const free = concurrency - inFlight;
      if (free < claimAt && inFlight > 0) {
        await pause(idlePollMs, "settled");
        continue;
      }
      const now = clock();
      let batch: ClaimedDelivery[] = [];
      recordedSinceClaim = false;
      try {
        batch = await claimDueDeliveries(s.db, now, free, s.leaseMs, s.claim);
      } catch (err) {
        s.logger.error({ err }, "could not claim webhook deliveries");
        await pause(1_000, null);
        continue;
      }
      if (batch.length > 0) {
        inFlight += batch.length;
        void attemptAll(s, batch, now, (outcome) => {
          inFlight -= 1;
          if (outcome) pending.push(outcome);
          void flush();
          if (wakeOn === "settled") nudge();
        });
      }
      if (batch.length < free && !recordedSinceClaim) await pause(idlePollMs, inFlight > 0 ? "recorded" : null);
    }
  })();

  options.logger.info({ concurrency, idle_poll_ms: idlePollMs }, "webhook delivery worker started");
  return {
    async stop() {
      running = false;
      nudge();
      await loop;
      while (inFlight > 0) await new Promise((r) => setTimeout(r, 20));
      await flush();
      await s.env.agents.close();
      options.logger.info("webhook delivery worker stopped");
    },
  };
}
