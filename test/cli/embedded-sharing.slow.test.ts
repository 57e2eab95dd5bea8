// The embedded database (no DATABASE_URL) while `npm start` runs: the operator CLI, psql-like
// clients and a second server, as a newcomer would meet them in a second terminal.
import assert from "node:assert/strict";
import { connect } from "node:net";
import { existsSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { usingPostgres } from "../helpers/backends.ts";
import { FIRST_START_READY, freePort, runNpm, startNpm, tempDir, type StartedProcess } from "../helpers/processes.ts";

const SOCKET = ".s.PGSQL.5432";

async function ports() {
  return {
    API_PORT: String(await freePort()),
    MCP_PORT: String(await freePort()),
    DOCS_PORT: String(await freePort()),
    SITE_PORT: String(await freePort()),
    PORTAL_PORT: String(await freePort()),
    DASHBOARD_PORT: String(await freePort()),
    AUTH_PORT: String(await freePort()),
  };
}

// The embedded backend only: with DATABASE_URL every process connects to PostgreSQL itself.
if (!usingPostgres)
  describe("[embedded] embedded database shared with the operator CLI", function () {
    this.timeout(180_000);
    let dataDir: string;
    let env: Record<string, string>;
    let server: StartedProcess;
    let api: string;

    before(async () => {
      dataDir = tempDir("shared");
      env = { DATA_DIR: dataDir, LOG_LEVEL: "warn", ...(await ports()) };
      api = `http://127.0.0.1:${env.API_PORT}`;
      server = await startNpm(env, FIRST_START_READY);
    });
    after(async () => {
      await server?.stop();
    });

    const get = (path: string, token: string) => fetch(`${api}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const post = (path: string, token: string, body: unknown) =>
      fetch(`${api}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": crypto.randomUUID() },
        body: JSON.stringify(body),
      });

    it("the start banner names the socket; the CLI mints a token the running server accepts at once", async () => {
      assert.match(server.output(), new RegExp(`served on ${join(dataDir, SOCKET).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
      const minted = await runNpm("cli", ["token:mint", "--email", "demo@subbridge.local", "--abilities", "team:view,project:view"], env);
      assert.equal(minted.code, 0, minted.stderr);
      const { token } = JSON.parse(minted.stdout) as { token: string };
      const res = await get("/v1/teams/current", token);
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { data: { name: string } }).data.name, "Demo team");
    });

    it("a project the CLI creates is known to the server, and what the server writes is read by the CLI", async () => {
      const minted = JSON.parse((await runNpm("cli", ["token:mint", "--email", "demo@subbridge.local", "--abilities", "all"], env)).stdout);
      const created = await runNpm("cli", ["project:create", "--email", "demo@subbridge.local", "--name", "From the CLI"], env);
      assert.equal(created.code, 0, created.stderr);
      const { project_id } = JSON.parse(created.stdout) as { project_id: string };
      // The server checks project_ids against its database: the CLI's project is there.
      const made = await post("/v1/tokens", minted.token, { name: "made by the server", abilities: ["team:view"], project_ids: [project_id] });
      assert.equal(made.status, 201, await made.clone().text());
      assert.deepEqual(((await made.json()) as { data: { scopes: string[] } }).data.scopes.slice(1), [`scope:project:${project_id}`]);
      const client = new pg.Client({ host: dataDir, port: 5432 });
      await client.connect();
      try {
        const rows = await client.query("select name from personal_access_tokens where name = $1", ["made by the server"]);
        assert.equal(rows.rowCount, 1);
      } finally {
        await client.end();
      }
    });

    it("several CLI commands at once, while the API writes, all succeed", async () => {
      const minted = JSON.parse((await runNpm("cli", ["token:mint", "--email", "demo@subbridge.local", "--abilities", "all"], env)).stdout);
      const writes = Array.from({ length: 20 }, (_, i) =>
        post("/v1/tokens", minted.token, { name: `burst ${i}`, abilities: ["team:view"] }).then((r) => r.status),
      );
      const commands = Array.from({ length: 3 }, () =>
        runNpm("cli", ["token:mint", "--email", "demo@subbridge.local", "--abilities", "team:view"], env),
      );
      const results = await Promise.all(commands);
      for (const r of results) assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(await Promise.all(writes), Array(20).fill(201));
      for (const r of results) assert.equal((await get("/v1/teams/current", JSON.parse(r.stdout).token)).status, 200);
    });

    it("a client left inside a transaction is disconnected once others wait; its writes roll back", async () => {
      const minted = JSON.parse((await runNpm("cli", ["token:mint", "--email", "demo@subbridge.local", "--abilities", "all"], env)).stdout);
      const idle = new pg.Client({ host: dataDir, port: 5432 });
      const ended = new Promise<Error>((resolve) => idle.on("error", resolve));
      await idle.connect();
      await idle.query("begin");
      await idle.query("update teams set name = 'never committed'");
      const res = await get("/v1/teams/current", minted.token); // waits for the idle client's timeout
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { data: { name: string } }).data.name, "Demo team");
      assert.match((await ended).message, /idle-in-transaction|terminated/);
      await idle.end().catch(() => undefined);
    });

    it("bytes that are not the PostgreSQL protocol are refused without harming the database", async () => {
      const minted = JSON.parse((await runNpm("cli", ["token:mint", "--email", "demo@subbridge.local", "--abilities", "team:view"], env)).stdout);
      for (const payload of [
        Buffer.from("GET / HTTP/1.1\r\n\r\n"),
        Buffer.from([0, 0, 0, 8, 0, 3, 0, 0, 0x70, 0, 0, 0, 4]),
        Buffer.alloc(64, 0xff),
      ]) {
        const reply = await new Promise<Buffer>((resolve) => {
          const socket = connect(join(dataDir, SOCKET));
          const chunks: Buffer[] = [];
          socket.on("data", (d) => chunks.push(d));
          socket.on("close", () => resolve(Buffer.concat(chunks)));
          socket.on("error", () => undefined);
          socket.write(payload);
          setTimeout(() => socket.destroy(), 3000);
        });
        // The server's messages (type byte, int32 length): the last one is a FATAL ErrorResponse
        // ('E') with SQLSTATE 08P01 (protocol violation), never ReadyForQuery ('Z').
        const messages: { type: string; body: Buffer }[] = [];
        for (let at = 0; at + 5 <= reply.length;) {
          const length = reply.readInt32BE(at + 1);
          messages.push({ type: String.fromCharCode(reply[at]!), body: reply.subarray(at + 5, at + 1 + length) });
          at += 1 + length;
        }
        const last = messages.at(-1);
        assert.equal(last?.type, "E", `the connection ends with an error: ${reply.toString("latin1")}`);
        const fields = last.body.toString("utf8").split("\0");
        assert.ok(fields.includes("SFATAL") && fields.includes("C08P01"), fields.join(" | "));
      }
      assert.equal((await get("/v1/teams/current", minted.token)).status, 200);
    });

    it("a second server on the same DATA_DIR is refused with a message that says what to do", async () => {
      const second = await runNpm("start", [], { ...env, ...(await ports()) }).catch((e: Error) => ({ code: -1, stdout: "", stderr: e.message }));
      assert.notEqual(second.code, 0);
      assert.match(second.stderr, /another process is using the embedded database in .*One server per DATA_DIR.*DATABASE_URL/s);
      assert.ok(!/at .*\.ts:\d+/.test(second.stderr), "no stack trace");
    });

    it("after the server stops the CLI opens the database alone; a socket left by a killed server is taken over", async () => {
      const minted = JSON.parse((await runNpm("cli", ["token:mint", "--email", "demo@subbridge.local", "--abilities", "team:view"], env)).stdout);
      await server.stop();
      assert.ok(!existsSync(join(dataDir, SOCKET)), "the socket goes with the server");
      const alone = await runNpm("cli", ["token:mint", "--email", "demo@subbridge.local", "--abilities", "team:view"], env);
      assert.equal(alone.code, 0, alone.stderr);

      server = await startNpm(env, /Need a token\?.*\n/);
      assert.equal((await get("/v1/teams/current", JSON.parse(alone.stdout).token)).status, 200);
      process.kill(-server.child.pid!, "SIGKILL");
      await new Promise((r) => server.child.once("close", r));
      assert.ok(existsSync(join(dataDir, SOCKET)), "kill -9 leaves the socket file");
      server = await startNpm(env, /Need a token\?.*\n/);
      assert.equal((await get("/v1/teams/current", minted.token)).status, 200, "data written before kill -9 survives");
    });
  });
