// Work in flight is neither lost nor done twice: mail, bot messages and a scheduled job held by a
// worker process SIGKILLed mid-way are taken over by another once their leases (or the job's
// expiry) run out: every message sent at least once, a repeat only of what the dead worker held and
// carrying the same Message-ID, and the job's effect once though it ran twice (its dedupe key).
// And sends in flight while the database refuses connections are recorded once it is back, none
// sent again. Webhook deliveries under a SIGKILL are walked in test/multi-process/delivery-chaos.
// Runs in the PostgreSQL + Redis leg; acts on its own database only.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { randomInt, randomUUID } from "node:crypto";
import PgBoss from "pg-boss";
import { openDatabase, type Database } from "../../src/db/database.ts";
import { createDomainContext, systemActor } from "../../src/db/tenant.ts";
import { queueBotMessage } from "../../src/modules/bot-messages/outbox.ts";
import { fakePlatformEndpoints } from "../../src/outside/platforms.ts";
import { startMailCatcher, type MailCatcher } from "../../src/simulators/mail-catcher.ts";
import { queueMailAt } from "../../src/modules/mail/outbox.ts";
import { QUEUE_SCHEMA } from "../../src/workers/jobs/worker.ts";
import { usingPostgres, usingRedis } from "../helpers/backends.ts";
import { ApiClient } from "../helpers/http.ts";
import { testPlatform } from "../helpers/platforms.ts";
import { startProgram } from "../helpers/processes.ts";
import { startApi, TEST_APP_KEY } from "../helpers/server.ts";
import { installTelegram } from "../modules/connectors/support.ts";
import { chaosDatabase, msUntil, type ChaosDatabase } from "./service.ts";

const JOB = "chaos.outbox";
const JOB_RECIPIENT = "100000001";
/** How long the receivers hold each answer: a send is in flight that long. */
const HOLD_MS = 300;

const startWorker = (env: Record<string, string>) => startProgram("test/chaos/outbox-worker-program.ts", env, "outbox worker ready");

async function stopWorker(child: ChildProcess | undefined) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

if (usingPostgres && usingRedis)
  describe("work in flight when a worker dies or the database refuses connections", function () {
    this.timeout(180_000);
    let database: ChaosDatabase;
    let db: Database;
    let catcher: MailCatcher;
    let installation: { id: string; project_id: string; connector_key: string; team_id: string };
    let bot: string;
    let workerEnv: Record<string, string>;
    const workers: ChildProcess[] = [];

    before(async () => {
      database = await chaosDatabase("chaos_in_flight");
      db = openDatabase({ url: database.url });
      await db.schema.createTable("chaos_job_runs", (t) => t.integer("pid").notNullable());
      const api = await startApi({ db });
      try {
        const client = new ApiClient(api.url, database.token);
        const project = (await client.post("/v1/projects", { name: "In flight" })).body.data.id as string;
        bot = (await installTelegram(client, project)).bot.token.split(":")[0]!;
        installation = await db("connector_installations").where({ project_id: project, connector_key: "telegram" }).first();
      } finally {
        await api.close();
      }
      catcher = await startMailCatcher({ page: null, holdMs: HOLD_MS });
      (await testPlatform()).delay(HOLD_MS);
      workerEnv = {
        DATABASE_URL: database.url,
        APP_KEY: TEST_APP_KEY.toString("hex"),
        SMTP_URL: catcher.smtpUrl,
        CHAOS_PLATFORMS: JSON.stringify(fakePlatformEndpoints(await testPlatform())),
        CHAOS_INSTALLATION: JSON.stringify({
          id: installation.id,
          project_id: installation.project_id,
          connector_key: "telegram",
          team_id: installation.team_id,
        }),
        CHAOS_LEASE_MS: "8000",
        CHAOS_JOB: JOB,
        CHAOS_JOB_RECIPIENT: JOB_RECIPIENT,
      };
    });
    after(async () => {
      (await testPlatform()).delay(0);
      for (const w of workers) await stopWorker(w);
      await catcher?.close();
      await db?.destroy();
      await database?.drop();
    });

    const addresses = (n: number) => Array.from({ length: n }, () => `${randomUUID()}@example.test`);
    const recipients = (n: number) => Array.from({ length: n }, () => String(randomInt(200_000_000, 999_999_999)));
    const queue = async (mailTo: string[], botTo: string[]) => {
      const now = new Date();
      // One transaction each: a worker claims them together.
      await db.transaction(async (trx) => {
        for (const to of mailTo) await queueMailAt(trx, { to, subject: "In flight", body: `For ${to}` }, now);
      });
      await db.transaction(async (trx) => {
        const ctx = createDomainContext(trx, systemActor(installation.team_id), now);
        for (const to of botTo) await queueBotMessage(ctx, { installation, purpose: "notice", recipient: to, text: `For ${to}` });
      });
    };
    const caught = (to: string) => catcher.messages().filter((m) => m.to.includes(to));
    const botSends = async (to: string) =>
      (await testPlatform()).calls.filter((c) => c.name === "sendMessage" && c.bot === bot && String(c.params.chat_id) === to);
    const statuses = async (table: "mail_outbox" | "bot_messages", column: string, keys: string[]) =>
      (await db(table).whereIn(column, keys).pluck("status")) as string[];

    it("sends every message and runs the job's effect once though a worker was killed holding them", async () => {
      const mailTo = addresses(80);
      const botTo = recipients(30);
      await queue(mailTo, botTo);
      workers.push(await startWorker({ ...workerEnv, CHAOS_JOB_HANGS: "1" }));
      const boss = new PgBoss({ connectionString: database.url, schema: QUEUE_SCHEMA, supervise: false, schedule: false, migrate: false });
      boss.on("error", () => undefined);
      await boss.start();
      const jobId = (await boss.send(JOB, {}))!;
      try {
        await msUntil(
          "sends under way and the job mid-way",
          async () =>
            Number((await db("chaos_job_runs").count({ n: "*" }))[0]!.n) === 1 &&
            (await testPlatform()).calls.some((c) => c.name === "sendMessage" && c.bot === bot) &&
            (await statuses("mail_outbox", "to_address", mailTo)).includes("sending"),
          30_000,
        );
        workers[0]!.kill("SIGKILL");
        await new Promise((r) => workers[0]!.once("exit", r));
        const heldMail = (await statuses("mail_outbox", "to_address", mailTo)).filter((s) => s === "sending").length;
        const heldBot = (await statuses("bot_messages", "recipient", [...botTo, JOB_RECIPIENT])).filter((s) => s === "sending").length;
        assert.ok(heldMail > 0 && heldBot > 0, `the killed worker held mail (${heldMail}) and bot messages (${heldBot}) in flight`);

        workers.push(await startWorker({ ...workerEnv, CHAOS_JOB_HANGS: "0" }));
        await msUntil(
          "everything sent and the job done",
          async () =>
            (await statuses("mail_outbox", "to_address", mailTo)).every((s) => s === "sent") &&
            (await statuses("bot_messages", "recipient", [...botTo, JOB_RECIPIENT])).every((s) => s === "sent") &&
            (await boss.getJobById(JOB, jobId))?.state === "completed",
          60_000,
        );
        let mailRepeats = 0;
        for (const to of mailTo) {
          const copies = caught(to);
          assert.ok(copies.length >= 1, `mail to ${to} arrived`);
          assert.equal(new Set(copies.map((m) => m.messageId)).size, 1, "every copy carries the row's one Message-ID");
          mailRepeats += copies.length - 1;
        }
        let botRepeats = 0;
        for (const to of botTo) {
          const sends = (await botSends(to)).length;
          assert.ok(sends >= 1, `bot message to ${to} sent`);
          botRepeats += sends - 1;
        }
        assert.ok(mailRepeats <= heldMail && botRepeats <= heldBot, "only what the killed worker held was sent again");
        assert.equal(Number((await db("chaos_job_runs").count({ n: "*" }))[0]!.n), 2, "the job ran again after its worker died");
        assert.equal((await db("bot_messages").where({ dedupe_key: "chaos-job" })).length, 1, "its effect was queued once");
        assert.ok((await botSends(JOB_RECIPIENT)).length >= 1);
        console.log(
          `      in flight at the kill: ${heldMail} mail, ${heldBot} bot messages; sent again: ${mailRepeats} mail, ${botRepeats} bot messages`,
        );
      } finally {
        await boss.stop({ graceful: false, close: true });
      }
    });

    it("records sends in flight while the database refuses connections once it is back, sending none twice", async () => {
      // Bot messages go one after another (each held), so their sends are under way when the mail's begin.
      const botTo = recipients(10);
      await queue([], botTo);
      await msUntil("the first bot message sent", async () => (await botSends(botTo[0]!)).length > 0, 30_000);
      const mailTo = addresses(8);
      await queue(mailTo, []);
      await msUntil("the mail claimed", async () => (await statuses("mail_outbox", "to_address", mailTo)).every((s) => s === "sending"), 10_000);
      await database.allowConnections(false);
      try {
        await database.terminate();
        await msUntil(
          "every send answered",
          async () => mailTo.every((to) => caught(to).length > 0) && (await Promise.all(botTo.map(botSends))).every((s) => s.length > 0),
          20_000,
        );
        // The records meet the refusal and wait for the database.
        await new Promise((r) => setTimeout(r, 1_500));
      } finally {
        await database.allowConnections(true);
      }
      await msUntil(
        "everything recorded sent",
        async () =>
          (await statuses("mail_outbox", "to_address", mailTo)).every((s) => s === "sent") &&
          (await statuses("bot_messages", "recipient", botTo)).every((s) => s === "sent"),
        20_000,
      );
      // Past the 8 s leases: a send whose record was lost would have gone out again by now.
      await new Promise((r) => setTimeout(r, 2_000));
      for (const to of mailTo) assert.equal(caught(to).length, 1, `mail to ${to} once`);
      for (const to of botTo) assert.equal((await botSends(to)).length, 1, `bot message to ${to} once`);
    });
  });
