// The operator CLI, run as `npm run cli -- ...` against this run's database.
import assert from "node:assert/strict";
import { runNpm, tempDir } from "../helpers/processes.ts";
import { testDatabase } from "../helpers/backends.ts";
import { uniqueEmail } from "../helpers/fixtures.ts";
import { openConfiguredDatabase, type Database } from "../../src/db/database.ts";
import { resolveToken } from "../../src/modules/tokens/tokens.ts";

describe("operator CLI", function () {
  this.timeout(120_000);
  let env: Record<string, string>;
  let db: Database;
  let ownDb = false;
  before(async () => {
    const backends = await testDatabase();
    if (backends.databaseUrl) {
      env = { DATABASE_URL: backends.databaseUrl, LOG_LEVEL: "silent" };
      db = backends.db;
    } else {
      const dataDir = tempDir("cli");
      env = { DATA_DIR: dataDir, LOG_LEVEL: "silent" };
      // Opened for each check (a client of the owner when a command is running, else its owner).
      db = null as unknown as Database;
      ownDb = true;
      env.__dataDir = dataDir;
    }
  });

  async function withDb<T>(use: (db: Database) => Promise<T>): Promise<T> {
    if (!ownDb) return use(db);
    const local = await openConfiguredDatabase({ url: null, dataDir: env.__dataDir!, mode: "share" });
    try {
      return await use(local.db);
    } finally {
      await local.close();
    }
  }

  it("creates a creator with a personal team and prints {user_id, team_id}", async () => {
    const email = uniqueEmail("cli");
    const res = await runNpm("cli", ["creator:create", "--email", email, "--password", "longenough", "--tier", "growth"], env);
    assert.equal(res.code, 0, res.stderr);
    const out = JSON.parse(res.stdout);
    assert.deepEqual(Object.keys(out), ["user_id", "team_id"]);
    await withDb(async (d) => {
      const user = await d("users").where({ id: out.user_id }).first();
      assert.equal(user.email, email);
      assert.equal(user.tier, "growth");
      assert.match(user.password_hash, /^scrypt\$/);
      const team = await d("teams").where({ id: out.team_id }).first();
      assert.equal(team.owner_user_id, out.user_id);
      assert.equal(team.personal, true);
    });
  });

  it("mints tokens and prints {id, token, abilities, scopes}", async () => {
    const email = uniqueEmail("cli");
    const created = JSON.parse((await runNpm("cli", ["creator:create", "--email", email, "--password", "longenough", "--tier", "free"], env)).stdout);
    const all = await runNpm("cli", ["token:mint", "--email", email, "--abilities", "all"], env);
    assert.equal(all.code, 0, all.stderr);
    const minted = JSON.parse(all.stdout);
    assert.deepEqual(Object.keys(minted), ["id", "token", "abilities", "scopes"]);
    assert.equal(minted.abilities.length, 106);
    assert.ok(minted.abilities.includes("token:create"), "the operator may grant token:create");
    assert.deepEqual(minted.scopes, [`scope:team:${created.team_id}`]);
    const project = JSON.parse((await runNpm("cli", ["project:create", "--email", email, "--name", "Night Owls"], env)).stdout);
    const narrow = await runNpm(
      "cli",
      ["token:mint", "--email", email, "--abilities", "team:view,activity:read", "--project", project.project_id],
      env,
    );
    assert.equal(narrow.code, 0, narrow.stderr);
    const narrowOut = JSON.parse(narrow.stdout);
    assert.deepEqual(narrowOut.abilities, ["activity:read", "team:view"]);
    assert.deepEqual(narrowOut.scopes, [`scope:team:${created.team_id}`, `scope:project:${project.project_id}`]);
    await withDb(async (d) => {
      // An embedded data directory is a sandbox by default (SUBBRIDGE_ENVIRONMENT): its tokens are sbt_test_.
      assert.match(narrowOut.token, ownDb ? /^sbt_test_/ : /^sbt_live_/);
      const resolved = await resolveToken(d, narrowOut.token, new Date(), ownDb ? "test" : "live");
      assert.equal(resolved?.teamId, created.team_id);
      assert.deepEqual(resolved?.projectIds, [project.project_id]);
    });
  });

  // Each refusal's wording is checked in-process (commands.test.ts); here, what a process adds:
  // the exit code, the message on stderr with nothing on stdout, and no stack trace, for a refusal
  // of each kind (an account rule, the command line, an unknown ability).
  it("refuses bad input with a message on stderr and exit code 1", async () => {
    const email = uniqueEmail("cli");
    await runNpm("cli", ["creator:create", "--email", email, "--password", "longenough", "--tier", "starter"], env);
    const cases: [string[], RegExp][] = [
      [["creator:create", "--email", email, "--password", "longenough", "--tier", "starter"], /already exists/],
      [["token:mint", "--bogus"], /Unknown option/],
      [["token:mint", "--email", email, "--abilities", "team:view,made:up"], /made:up is not an ability/],
    ];
    // At once: the commands are independent (on the embedded database one opens it and the others
    // become its clients).
    const results = await Promise.all(cases.map(([args]) => runNpm("cli", args, env)));
    for (const [i, [args, message]] of cases.entries()) {
      const res = results[i]!;
      assert.equal(res.code, 1, `${args.join(" ")}: ${res.stdout}`);
      assert.match(res.stderr, message, args.join(" "));
      assert.equal(res.stdout, "");
      assert.ok(!/at .*\.ts:\d+/.test(res.stderr), `no stack trace for ${args.join(" ")}`);
    }
  });
});
