// The operator's commands in-process, on this run's database: what each prints and how each
// refuses. The *.slow.test.ts files beside this one run the same commands as `npm run cli`, for
// the exit codes, stderr and the embedded database shared with a running server.
import assert from "node:assert/strict";
import { testDatabase } from "../helpers/backends.ts";
import { uniqueEmail } from "../helpers/fixtures.ts";
import { TEST_APP_KEY } from "../helpers/server.ts";
import { tempDir } from "../helpers/processes.ts";
import { failureMessage, runOperatorCommand } from "../../src/operator-commands.ts";
import { resolveToken } from "../../src/modules/tokens/tokens.ts";
import { createCreator } from "../../src/modules/account/creators.ts";
import { createDomainContext, systemActor } from "../../src/db/tenant.ts";
import { invite } from "../../src/modules/teams/invitations.ts";
import { requestSignUp } from "../../src/modules/account/sign-ups.ts";
import type { Database } from "../../src/db/database.ts";

describe("operator commands (in-process)", () => {
  let db: Database;
  const env = { LOG_LEVEL: "silent", APP_KEY: TEST_APP_KEY.toString("base64"), DATA_DIR: tempDir("commands") };
  const run = (...argv: string[]) =>
    runOperatorCommand(argv, { env, openDatabase: async () => ({ db, description: "the run's database", close: async () => {} }) });
  /** The message the CLI prints for the command's refusal. */
  const refusal = async (...argv: string[]) => {
    const err = await run(...argv).then(
      () => assert.fail(`${argv.join(" ")} succeeded`),
      (e: unknown) => e,
    );
    return failureMessage(err);
  };

  before(async () => {
    db = (await testDatabase()).db;
  });

  it("creator:create prints {user_id, team_id}; token:mint and project:create print theirs", async () => {
    const email = uniqueEmail("commands");
    const created = (await run("creator:create", "--email", email, "--password", "longenough", "--tier", "growth")) as Record<string, string>;
    assert.deepEqual(Object.keys(created), ["user_id", "team_id"]);
    const user = await db("users").where({ id: created.user_id }).first();
    assert.equal(user.email, email);
    assert.equal(user.tier, "growth");
    assert.match(user.password_hash, /^scrypt\$16384\$/, "the operator's creators get the production hashing cost");

    const all = (await run("token:mint", "--email", email, "--abilities", "all")) as { abilities: string[]; scopes: string[] };
    assert.deepEqual(Object.keys(all), ["id", "token", "abilities", "scopes"]);
    assert.ok(all.abilities.includes("token:create"), "the operator may grant token:create");
    assert.deepEqual(all.scopes, [`scope:team:${created.team_id}`]);

    const project = (await run("project:create", "--email", email, "--name", "Night Owls")) as Record<string, string>;
    assert.deepEqual(Object.keys(project), ["project_id", "handle", "team_id"]);
    const narrow = (await run("token:mint", "--email", email, "--abilities", "team:view, activity:read", "--project", project.project_id!)) as {
      token: string;
      abilities: string[];
      scopes: string[];
    };
    assert.deepEqual(narrow.abilities, ["activity:read", "team:view"]);
    assert.deepEqual(narrow.scopes, [`scope:team:${created.team_id}`, `scope:project:${project.project_id}`]);
    // No DATABASE_URL in this environment: the CLI acts for an embedded start, a sandbox by default.
    assert.match(narrow.token, /^sbt_test_/);
    const resolved = await resolveToken(db, narrow.token, new Date(), "test");
    assert.deepEqual(resolved?.projectIds, [project.project_id]);
  });

  it("migrate prints the migrations it applied (none on a current database)", async () => {
    assert.deepEqual(await run("migrate"), { applied: [] });
  });

  it("refuses bad input in words, with the usage where the command line is wrong", async () => {
    const email = uniqueEmail("commands");
    await run("creator:create", "--email", email, "--password", "longenough", "--tier", "starter");
    const cases: [string[], RegExp][] = [
      [["creator:create", "--email", email, "--password", "longenough", "--tier", "starter"], /already exists/],
      [["creator:create", "--email", "nope", "--password", "longenough", "--tier", "starter"], /not an email address/],
      [["creator:create", "--email", uniqueEmail(), "--password", "short", "--tier", "starter"], /at least 8/],
      [["creator:create", "--email", uniqueEmail(), "--password", "longenough", "--tier", "platinum"], /--tier must be one of[\s\S]*usage:/],
      [["token:mint", "--email", uniqueEmail(), "--abilities", "all"], /no creator/],
      [["token:mint", "--email", email, "--abilities", "team:view,made:up"], /made:up is not an ability/],
      [["token:mint", "--email", email, "--abilities", "webhook-endpoint:manage"], /retired/],
      [["token:mint", "--email", email], /--abilities is required/],
      [["frobnicate"], /unknown command frobnicate\nusage:/],
      [[], /a command is required/],
      [["token:mint", "--bogus"], /Unknown option '--bogus'[\s\S]*usage:/],
      [["creator:create", "--email", uniqueEmail(), "--password", "longenough", "--tier", "growth", "extra"], /Unexpected argument/],
    ];
    for (const [argv, message] of cases) {
      const said = await refusal(...argv);
      assert.match(said, message, argv.join(" "));
      assert.ok(!/at .*\.ts:\d+/.test(said), `no stack trace for ${argv.join(" ")}`);
    }
  });

  it("jobs:list names each job with its schedule", async () => {
    const jobs = (await run("jobs:list")) as { name: string; cron: string; description: string }[];
    const expiry = jobs.find((j) => j.name === "teams.invitations.expire");
    assert.deepEqual(Object.keys(expiry!), ["name", "cron", "description"]);
    assert.equal(expiry!.cron, "*/15 * * * *");
  });

  it("jobs:run runs one job at --now and prints {name, now, changed}", async () => {
    const invitedAt = new Date("1990-01-01T00:00:00Z"); // earlier than anything else in the database
    const { userId, teamId } = await createCreator(db, { email: uniqueEmail("commands-jobs"), password: "longenough", tier: "growth" }, invitedAt);
    const invitationId = await db.transaction(async (trx) => {
      const ctx = createDomainContext(trx, { ...systemActor(teamId), userId, kind: "human" as const }, invitedAt);
      return (await invite(ctx, { email: uniqueEmail("invitee"), role: "member" }, { acceptUrl: (s) => `http://x/?t=${s}` })).id;
    });
    assert.deepEqual(await run("jobs:run", "teams.invitations.expire", "--now", "1990-01-08T00:00:00Z"), {
      name: "teams.invitations.expire",
      now: "1990-01-08T00:00:00.000Z",
      changed: 1,
    });
    assert.equal((await db("team_invitations").where({ id: invitationId }).first("status")).status, "expired");
  });

  it("jobs:run refuses an unknown job, a time that is not ISO 8601, and a missing name", async () => {
    assert.match(await refusal("jobs:run", "teams.nothing"), /^no scheduled job named teams\.nothing \(npm run cli -- jobs:list\)$/);
    assert.match(await refusal("jobs:run", "teams.invitations.expire", "--now", "tomorrow"), /--now must be an ISO 8601 time/);
    assert.match(await refusal("jobs:run"), /jobs:run takes one job name/);
  });

  it("mail:list prints the messages waiting for an address, a sign-up's confirmation link among them", async () => {
    const email = uniqueEmail("commands-mail");
    const links = { confirmUrl: (s: string) => `http://auth.test/sign-up/confirm?token=${s}`, signInUrl: "http://auth.test/sign-in" };
    await requestSignUp(db, { email, password: "long enough password" }, links, new Date());
    const mail = (await run("mail:list", "--email", email)) as { to: string; subject: string; body: string }[];
    assert.equal(mail.length, 1);
    assert.equal(mail[0]!.to, email);
    assert.equal(mail[0]!.subject, "Confirm your SubBridge account");
    assert.match(mail[0]!.body, /http:\/\/auth\.test\/sign-up\/confirm\?token=\S{40}/);
  });
});
