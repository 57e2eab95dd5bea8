// The operator's job commands: jobs:list and jobs:run <name> [--now ISO], run as `npm run cli`.
import assert from "node:assert/strict";
import { runNpm, tempDir } from "../helpers/processes.ts";
import { testDatabase } from "../helpers/backends.ts";
import { uniqueEmail } from "../helpers/fixtures.ts";
import { migrate, openConfiguredDatabase, type Database } from "../../src/db/database.ts";
import { createDomainContext, systemActor } from "../../src/db/tenant.ts";
import { invite } from "../../src/modules/teams/invitations.ts";
import { createCreator } from "../../src/modules/account/creators.ts";

describe("operator CLI: scheduled jobs", function () {
  this.timeout(120_000);
  let env: Record<string, string>;
  let databaseUrl: string | null;
  before(async () => {
    databaseUrl = (await testDatabase()).databaseUrl;
    env = databaseUrl ? { DATABASE_URL: databaseUrl, LOG_LEVEL: "info" } : { DATA_DIR: tempDir("cli-jobs"), LOG_LEVEL: "info" };
  });

  async function withDb<T>(use: (db: Database) => Promise<T>): Promise<T> {
    const opened = await openConfiguredDatabase({ url: databaseUrl, dataDir: env.DATA_DIR ?? "", mode: "share" });
    try {
      await migrate(opened.db);
      return await use(opened.db);
    } finally {
      await opened.close();
    }
  }

  it("lists the discovered jobs with their schedules", async () => {
    const res = await runNpm("cli", ["jobs:list"], env);
    assert.equal(res.code, 0, res.stderr);
    const jobs = JSON.parse(res.stdout) as { name: string; cron: string; description: string }[];
    const expiry = jobs.find((j) => j.name === "teams.invitations.expire");
    assert.deepEqual(Object.keys(expiry!), ["name", "cron", "description"]);
    assert.equal(expiry!.cron, "*/15 * * * *");
  });

  it("runs one job now, at --now, printing {name, now, changed} and logging the run", async () => {
    const invitedAt = new Date("2001-01-01T00:00:00Z"); // earlier than anything else in the database
    const invitationId = await withDb(async (db) => {
      const { userId, teamId } = await createCreator(db, { email: uniqueEmail("cli-jobs"), password: "longenough", tier: "growth" }, invitedAt);
      return db.transaction(async (trx) => {
        const ctx = createDomainContext(trx, { ...systemActor(teamId), userId, kind: "human" as const }, invitedAt);
        return (await invite(ctx, { email: uniqueEmail("invitee"), role: "member" }, { acceptUrl: (s) => `http://x/?t=${s}` })).id;
      });
    });
    const due = await runNpm("cli", ["jobs:run", "teams.invitations.expire", "--now", "2001-01-08T00:00:00Z"], env);
    assert.equal(due.code, 0, due.stderr);
    assert.deepEqual(JSON.parse(due.stdout), { name: "teams.invitations.expire", now: "2001-01-08T00:00:00.000Z", changed: 1 });
    const logged = due.stderr
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string; job: string; changed: number });
    assert.ok(
      logged.some((l) => l.msg === "scheduled job ran" && l.job === "teams.invitations.expire" && l.changed === 1),
      due.stderr,
    );
    assert.equal(await withDb(async (db) => (await db("team_invitations").where({ id: invitationId }).first("status")).status), "expired");
  });

  // The other refusals' wording is checked in-process (commands.test.ts).
  it("refuses an unknown job with a message on stderr and exit code 1", async () => {
    const unknown = await runNpm("cli", ["jobs:run", "teams.nothing"], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no scheduled job named teams\.nothing/);
    assert.equal(unknown.stdout, "");
  });
});
