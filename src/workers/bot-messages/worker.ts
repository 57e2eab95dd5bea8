// The bot message worker: sends the queued bot messages (src/modules/bot-messages) through each
// installation's driver, within its connector's manifest: text cut to `messaging.max_length`, and
// the `pacing` (per bot and per recipient) shared by every process through the KV store
// (pacing.ts). A message pacing holds back is handed back unsent, due when its slot comes. Time is
// injected: tests drive `sendDueBotMessages` at a chosen `now`.
import type { Logger } from "pino";
import type { Db } from "../../db/tenant.ts";
import { unscoped } from "../../db/tenant.ts";
import { KvUnavailableError, type Kv } from "../../kv/kv.ts";
import { mailAlertsTheBotCouldNotDeliver } from "../../modules/alerts/raise.ts";
import { pacingOf, takeSendSlot } from "../../modules/bot-messages/pacing.ts";
import { claimDueBotMessages, recordBotMessageOutcomes, type BotMessageOutcome, type ClaimedBotMessage } from "../../modules/bot-messages/queue.ts";
import { installationSession } from "../../modules/connectors/bot/session.ts";
import { installationTexts } from "../../modules/connectors/bot/texts.ts";
import { PlatformError } from "../../modules/connectors/drivers/driver.ts";
import type { ConnectorEnvironment } from "../../modules/connectors/environment.ts";
import type { InstallationRow } from "../../modules/connectors/tables.ts";
import { actingInstallations } from "../../modules/connectors/acting-installation.ts";
import { startPollingLoop } from "../polling-loop.ts";
import { runOutcomeHooks } from "./outcome-hooks.ts";
import { recordWithinLease } from "../within-lease.ts";

/** How long a message waits, handed back, while pacing cannot be read (the KV store unreachable). */
const KV_OUTAGE_WAIT_MS = 5_000;

export interface BotMessageWorkerOptions {
  db: Db;
  kv: Kv;
  env: Pick<ConnectorEnvironment, "connectors" | "platforms" | "appKey">;
  logger: Logger;
  clock?: () => Date;
  /** Messages claimed at once (default 50). */
  batchSize?: number;
  /** How often an idle worker looks for due messages (default 250 ms: paced messages fall due often). */
  idlePollMs?: number;
  /** How long a claim holds its messages (default 60 s: longer than any platform call's time-out). */
  leaseMs?: number;
  /** Only these installations' messages (tests on a shared database); default everyone's. */
  installations?: readonly string[];
}

export interface BotMessageWorker {
  stop(): Promise<void>;
}

/** `text` cut to `max` UTF-16 units (what Telegram and Discord count), marked as cut, never splitting a pair. */
export function fitText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

type Installation = Pick<InstallationRow, "id" | "connector_key" | "credentials" | "platform_account_id" | "status" | "taken_over_by" | "settings">;

async function installationsOf(db: Db, ids: string[]): Promise<Map<string, Installation>> {
  const rows = (await unscoped(
    db,
    "the bot message workers send every team's queued messages",
  )("connector_installations")
    .whereIn("id", ids)
    .select("id", "connector_key", "credentials", "platform_account_id", "status", "taken_over_by", "settings")) as Installation[];
  // A message queued for an installation a standby took over is sent by the standby's bot.
  const acting = await actingInstallations(db, rows);
  return new Map(rows.map((r, i) => [r.id, acting[i]!]));
}

/** One installation's claimed messages, in order: each paced, fitted and sent, or handed back. */
async function sendFor(o: BotMessageWorkerOptions, installation: Installation | undefined, messages: ClaimedBotMessage[], now: Date) {
  const outcomes: BotMessageOutcome[] = [];
  const manifest = installation ? o.env.connectors.packages.get(installation.connector_key)?.manifest : undefined;
  // An OAuth install (Discord) stores no credential: its bot is the deployment's application.
  const credentialed = installation?.credentials || manifest?.install.mode === "oauth";
  if (!installation || installation.status !== "active" || !credentialed || !manifest) {
    const error = "the installation is no longer active, or its connector is not loaded";
    return messages.map((message) => ({ message, result: "failed" as const, error }));
  }
  const pacing = pacingOf(manifest.pacing);
  const session = installationSession(o.env, installation);
  // Queued lines read in the language of the bot that sends them (a standby's, once it took over).
  const texts = installationTexts(o.env.connectors.packages, installation);
  for (const message of messages) {
    let waitMs: number;
    try {
      waitMs = await takeSendSlot(o.kv, pacing, installation.id, message.recipient, now.getTime());
    } catch (err) {
      // Pacing is the platform's limit across every process: while the KV store is unreachable
      // the message waits, handed back unsent (docs/decisions.md, "Redis outage").
      if (!(err instanceof KvUnavailableError)) throw err;
      waitMs = KV_OUTAGE_WAIT_MS;
    }
    if (waitMs > 0) {
      outcomes.push({ message, result: "deferred", untilMs: waitMs });
      continue;
    }
    try {
      const text = fitText(message.phrases ? texts.lines(message.phrases) : message.text, manifest.messaging.max_length);
      if (message.purpose !== "log") await session.sendMessage(message.recipient, text);
      else if (session.postToChannel) await session.postToChannel(message.recipient, text);
      else throw new PlatformError("unsupported", "The connector's bot cannot post to a channel.");
      outcomes.push({ message, result: "sent" });
    } catch (err) {
      if (!(err instanceof PlatformError)) throw err;
      // The platform's own rate limit: this message waits as long as it asks, unsent and not counted as an attempt.
      if (err.kind === "rate_limited") {
        outcomes.push({ message, result: "deferred", untilMs: err.retryAfterMs ?? 1_000 });
        continue;
      }
      // Unreachable is worth another try; a refusal (the member blocked the bot, no such chat) is final.
      const result = err.kind === "unreachable" ? "retry" : "failed";
      o.logger.warn({ bot_message_id: message.id, kind: err.kind, err: err.message }, "bot message not sent");
      outcomes.push({ message, result, error: err.message });
    }
  }
  return outcomes;
}

async function sendBatch(o: BotMessageWorkerOptions, now: Date): Promise<{ claimed: number; outcomes: BotMessageOutcome[] }> {
  const leaseMs = o.leaseMs ?? 60_000;
  const leaseEndsAtMs = Date.now() + leaseMs;
  const batch = await claimDueBotMessages(o.db, now, o.batchSize ?? 50, leaseMs, o.installations);
  if (batch.length === 0) return { claimed: 0, outcomes: [] };
  const byInstallation = new Map<string, ClaimedBotMessage[]>();
  for (const m of batch) byInstallation.set(m.installation_id, [...(byInstallation.get(m.installation_id) ?? []), m]);
  const installations = await installationsOf(o.db, [...byInstallation.keys()]);
  const outcomes = (await Promise.all([...byInstallation].map(([id, messages]) => sendFor(o, installations.get(id), messages, now)))).flat();
  const recorded = await recordWithinLease(() => recordBotMessageOutcomes(o.db, outcomes, now), leaseEndsAtMs);
  // A creator's alert the bot could not deliver goes by mail instead.
  const unsent = recorded.filter((x) => x.result === "failed" || x.result === "retry").map((x) => x.message.id);
  await mailAlertsTheBotCouldNotDeliver(o.db, unsent, now);
  // The producers that follow their messages (a broadcast's recipients) learn each outcome.
  await runOutcomeHooks(o.db, recorded, now);
  return { claimed: batch.length, outcomes: recorded };
}

/** Sends what is due at `now` until nothing more is (paced messages are handed back for later); answers the outcomes. */
export async function sendDueBotMessages(options: BotMessageWorkerOptions & { now: Date }): Promise<BotMessageOutcome[]> {
  const all: BotMessageOutcome[] = [];
  for (;;) {
    const { claimed, outcomes } = await sendBatch(options, options.now);
    all.push(...outcomes);
    if (claimed === 0 || outcomes.every((x) => x.result === "deferred")) return all;
  }
}

export function startBotMessageWorker(options: BotMessageWorkerOptions): BotMessageWorker {
  const clock = options.clock ?? (() => new Date());
  const batchSize = options.batchSize ?? 50;
  const loop = startPollingLoop({
    logger: options.logger,
    failure: "could not send the bot messages",
    idlePollMs: options.idlePollMs ?? 250,
    batch: async () => {
      const { claimed, outcomes } = await sendBatch(options, clock());
      return claimed === batchSize && outcomes.some((x) => x.result !== "deferred");
    },
  });
  options.logger.info({ batch_size: batchSize }, "bot message worker started");
  return {
    async stop() {
      await loop.stop();
      options.logger.info("bot message worker stopped");
    },
  };
}
