// A worker process for the in-flight chaos test (in-flight.slow.test.ts): the mail, bot message and
// job workers npm start runs, on DATABASE_URL, with leases of CHAOS_LEASE_MS (real milliseconds) and
// pg-boss's expiry and maintenance at a second or two, so what a killed worker held is taken over
// within seconds. Its one job (CHAOS_JOB) notes each run in chaos_job_runs (a table of the
// test's), queues a bot message to CHAOS_JOB_RECIPIENT under a dedupe key, and with CHAOS_JOB_HANGS=1 never finishes, as
// a run killed mid-way never does.
import pino from "pino";
import { DEFAULT_CONNECTORS_DIR } from "../../src/config.ts";
import { openDatabase } from "../../src/db/database.ts";
import { createDomainContext, systemActor } from "../../src/db/tenant.ts";
import { MemoryKv } from "../../src/kv/memory.ts";
import { queueBotMessage } from "../../src/modules/bot-messages/outbox.ts";
import { loadConnectorRegistry } from "../../src/modules/connectors/registry.ts";
import type { ScheduledJob } from "../../src/modules/jobs/scheduled-job.ts";
import { smtpSender } from "../../src/modules/mail/smtp.ts";
import { startBotMessageWorker } from "../../src/workers/bot-messages/worker.ts";
import { startJobWorker } from "../../src/workers/jobs/worker.ts";
import { startMailWorker } from "../../src/workers/mail/worker.ts";

const env = process.env;
{
  const installation = JSON.parse(env.CHAOS_INSTALLATION!) as { id: string; project_id: string; connector_key: string; team_id: string };
  const leaseMs = Number(env.CHAOS_LEASE_MS);
  const db = openDatabase({ url: env.DATABASE_URL! });
  const logger = pino({ level: "warn" });
  const job: ScheduledJob = {
    name: env.CHAOS_JOB!,
    cron: "0 0 1 1 *",
    description: "The chaos test's job: its effect is a deduplicated bot message.",
    async run({ db, now }) {
      await db("chaos_job_runs").insert({ pid: process.pid });
      await db.transaction((trx) =>
        queueBotMessage(createDomainContext(trx, systemActor(installation.team_id), now), {
          installation,
          purpose: "notice",
          recipient: env.CHAOS_JOB_RECIPIENT!,
          text: "queued by the chaos job",
          dedupeKey: "chaos-job",
        }),
      );
      if (env.CHAOS_JOB_HANGS === "1") await new Promise(() => undefined);
      return { changed: 1 };
    },
  };
  const sender = smtpSender({ smtpUrl: env.SMTP_URL!, from: "SubBridge <no-reply@chaos.test>", timeoutMs: 5_000 });
  const mail = startMailWorker({ db, sender, logger, messageIdDomain: "chaos.test", timeoutMs: 5_000, leaseMs, idlePollMs: 50 });
  const bots = startBotMessageWorker({
    db,
    kv: new MemoryKv(),
    env: {
      connectors: loadConnectorRegistry(DEFAULT_CONNECTORS_DIR),
      platforms: JSON.parse(env.CHAOS_PLATFORMS!),
      appKey: Buffer.from(env.APP_KEY!, "hex"),
    },
    logger,
    leaseMs,
    idlePollMs: 50,
  });
  const jobs = await startJobWorker({
    db,
    logger,
    jobs: [job],
    timing: { pollingIntervalSeconds: 0.5, expireInSeconds: 2, maintenanceIntervalSeconds: 1, retryDelaySeconds: 1, stopTimeoutMs: 1_000 },
  });
  console.log("outbox worker ready");
  process.on("SIGTERM", () => {
    void Promise.all([mail.stop(), bots.stop(), jobs.stop()])
      .then(() => db.destroy())
      .then(() => process.exit(0));
  });
}
