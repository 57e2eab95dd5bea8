// A newcomer's first `npm start` on an empty embedded database: surfaces, a demo creator and a
// token that works at once; stdout here is not a terminal (it is the log stream), so the password
// and token are in a file under DATA_DIR only this user reads, whose path is printed; the second
// start makes and prints no token and keeps the data.
import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { DEMO_CREDENTIALS_FILE } from "../../src/first-start.ts";
import { emptyPostgresDatabase, usingPostgres } from "../helpers/backends.ts";
import { FIRST_START_READY, freePort, startNpm, tempDir } from "../helpers/processes.ts";

describe("npm start on an empty embedded database", function () {
  this.timeout(300_000);

  it("[embedded] prints the surfaces and a working token once", async () => {
    const dataDir = tempDir("start");
    const ports = {
      API_PORT: await freePort(),
      DOCS_PORT: await freePort(),
      MCP_PORT: await freePort(),
      SITE_PORT: await freePort(),
      PORTAL_PORT: await freePort(),
      DASHBOARD_PORT: await freePort(),
      AUTH_PORT: await freePort(),
    };
    const env = { DATA_DIR: dataDir, LOG_LEVEL: "warn", ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])) };
    const first = await startNpm(env, FIRST_START_READY);
    let token: string;
    try {
      const out = first.output();
      assert.match(out, new RegExp(`REST API\\s+http://localhost:${ports.API_PORT}/v1`));
      assert.match(out, new RegExp(`Reference\\s+http://localhost:${ports.DOCS_PORT}`));
      assert.match(
        out,
        new RegExp(`Site\\s+http://localhost:${ports.SITE_PORT}\\s+\\(webhook signing keys: .*/\\.well-known/http-message-signatures-directory\\)`),
      );
      const keys = await fetch(`http://127.0.0.1:${ports.SITE_PORT}/.well-known/http-message-signatures-directory`);
      assert.equal(((await keys.json()) as { keys: unknown[] }).keys.length, 1, "the site publishes the webhook signing key");
      assert.match(
        out,
        new RegExp(`Authorization\\s+http://localhost:${ports.AUTH_PORT}\\s+\\(sign in: http://localhost:${ports.AUTH_PORT}/sign-in\\)`),
      );
      const metadata = await fetch(`http://127.0.0.1:${ports.AUTH_PORT}/.well-known/oauth-authorization-server`);
      assert.equal(((await metadata.json()) as { issuer: string }).issuer, `http://localhost:${ports.AUTH_PORT}`);
      assert.match(out, /Database\s+PGlite in /);
      assert.match(out, /KV store\s+in-process/);
      const credentials = join(dataDir, DEMO_CREDENTIALS_FILE);
      assert.ok(out.includes(credentials), "the banner names the file holding the secrets");
      assert.ok(!/sbt_test_\d+_|\(password /.test(out), "no secret on stdout, the log stream");
      // An embedded start runs simulated providers: a sandbox, whose tokens say so.
      assert.match(out, /Environment\s+test \(a sandbox: sbt_test_ tokens, simulated providers only\)/);
      assert.equal(statSync(credentials).mode & 0o777, 0o600);
      const secrets = readFileSync(credentials, "utf8");
      assert.match(secrets, /creator\s+demo@subbridge\.local \(password \S+\)/);
      assert.match(secrets, /Try it:[\s\S]*teams\/current\n/);
      token = /token\s+(sbt_test_\d+_[A-Za-z0-9]+)/.exec(secrets)![1]!;
      const res = await fetch(`http://127.0.0.1:${ports.API_PORT}/v1/teams/current`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.status, 200);
      const team = (await res.json()) as { data: { name: string } };
      assert.equal(team.data.name, "Demo team");
      const projects = await fetch(`http://127.0.0.1:${ports.API_PORT}/v1/tokens`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(((await projects.json()) as { data: { abilities: string[] }[] }).data[0]!.abilities.length, 106);
    } finally {
      await first.stop();
    }
    await assert.rejects(fetch(`http://127.0.0.1:${ports.API_PORT}/up`), "the server stopped listening on SIGTERM");
    const second = await startNpm(env, /Need a token\?.*\n/);
    try {
      assert.ok(!/sbt_test_\d+_/.test(second.output()), "the token is printed only on the first start");
      assert.match(second.output(), /Need a token\? npm run cli -- token:mint --email demo@subbridge\.local --abilities all/);
      const res = await fetch(`http://127.0.0.1:${ports.API_PORT}/v1/teams/current`, { headers: { authorization: `Bearer ${token!}` } });
      assert.equal(res.status, 200, "data survives a restart");
    } finally {
      await second.stop();
    }
  });

  if (usingPostgres) {
    it("on an empty PostgreSQL database seeds nothing and prints the CLI commands that make a creator and a token", async () => {
      const database = await emptyPostgresDatabase("banner");
      try {
        const env = {
          DATABASE_URL: database.url,
          DATA_DIR: tempDir("pg-start"),
          API_PORT: String(await freePort()),
          DOCS_PORT: String(await freePort()),
          MCP_PORT: String(await freePort()),
          SITE_PORT: String(await freePort()),
          PORTAL_PORT: String(await freePort()),
          DASHBOARD_PORT: String(await freePort()),
          AUTH_PORT: String(await freePort()),
          LOG_LEVEL: "warn",
        };
        const started = await startNpm(env, /token:mint --email you@example\.com --abilities all\n/);
        try {
          const out = started.output();
          assert.match(out, /Database\s+PostgreSQL/);
          assert.match(out, /No creator yet[\s\S]*npm run cli -- creator:create --email you@example\.com/);
          assert.match(out, /Or open an account at http:\/\/localhost:\d+\/sign-up[\s\S]*npm run cli -- mail:list --email you@example\.com/);
          assert.ok(!/sbt_live_\d+_/.test(out), "no demo token on PostgreSQL");
          assert.match(out, /Environment\s+live \(sbt_live_ tokens, real providers only\)/);
        } finally {
          await started.stop();
        }
      } finally {
        await database.drop();
      }
    });
  }

  it("explains a port that is already taken instead of printing a stack trace", async () => {
    const busy = await freePort();
    const blocker = (await import("node:net")).createServer().listen(busy, "0.0.0.0");
    await new Promise((r) => blocker.once("listening", r));
    try {
      const env = {
        DATA_DIR: tempDir("busy"),
        API_PORT: String(busy),
        DOCS_PORT: String(await freePort()),
        MCP_PORT: String(await freePort()),
        SITE_PORT: String(await freePort()),
        PORTAL_PORT: String(await freePort()),
        DASHBOARD_PORT: String(await freePort()),
        AUTH_PORT: String(await freePort()),
        LOG_LEVEL: "warn",
      };
      await assert.rejects(startNpm(env, /never/), (err: Error) => /port \d+ is already in use/.test(err.message) && !/at .*\.ts/.test(err.message));
    } finally {
      blocker.close();
    }
  });
});
