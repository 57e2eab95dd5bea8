// What the chaos tests share: `npm start` on a database of the test's own (migrated, with a creator
// and a token), watched from the moment its port first answers, and the database's sessions
// terminated or refused on the test's command, never the server's other databases.
import assert from "node:assert/strict";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import knex, { type Knex } from "knex";
import { migrate, openDatabase } from "../../src/db/database.ts";
import { createCreatorAccount, mintTokenForCreator } from "../../src/operator.ts";
import { emptyPostgresDatabase } from "../helpers/backends.ts";
import { freePort, startNpm, type StartedProcess } from "../helpers/processes.ts";
import { TEST_APP_KEY } from "../helpers/server.ts";

/** A database of the test's own with one creator and its token, and the server's maintenance connection to act on it. */
export interface ChaosDatabase {
  name: string;
  url: string;
  token: string;
  /** Ends every session of the database (never the test's own: they are on the maintenance database). */
  terminate(): Promise<number>;
  /** ALLOW_CONNECTIONS on the database. */
  allowConnections(allowed: boolean): Promise<void>;
  drop(): Promise<void>;
}

export async function chaosDatabase(label: string): Promise<ChaosDatabase> {
  const database = await emptyPostgresDatabase(label);
  const name = new URL(database.url).pathname.slice(1);
  const db = openDatabase({ url: database.url });
  let token: string;
  try {
    await migrate(db);
    const email = `chaos-${label}@example.test`;
    await createCreatorAccount(db, { email, password: "correct horse battery", tier: "growth" }, new Date());
    token = (await mintTokenForCreator(db, { email, abilities: "all" }, new Date())).token;
  } finally {
    await db.destroy();
  }
  const admin: Knex = knex({ client: "pg", connection: process.env.TEST_DATABASE_URL!, pool: { min: 0, max: 2 } });
  return {
    name,
    url: database.url,
    token,
    async terminate() {
      const { rows } = (await admin.raw("select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = ?", [name])) as {
        rows: { n: number }[];
      };
      return rows[0]!.n;
    },
    async allowConnections(allowed) {
      await admin.raw(`ALTER DATABASE ${name} ALLOW_CONNECTIONS ${allowed}`);
    },
    async drop() {
      await admin.raw(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => undefined);
      await admin.destroy();
      await database.drop();
    },
  };
}

export interface ChaosService {
  process: StartedProcess;
  api: string;
  mcp: string;
  /** Whether the process (npm and the server it runs) is still running. */
  running(): boolean;
}

/**
 * `npm start` serving the REST API and the MCP server, with the job worker and the other workers,
 * on `databaseUrl` and `redisUrl`; resolved as soon as npm has started it, before it answers.
 * Database waits are bounded at a few seconds so an outage is met quickly.
 */
export async function startService(databaseUrl: string, redisUrl: string, env: Record<string, string> = {}): Promise<ChaosService> {
  const [apiPort, mcpPort] = [await freePort(), await freePort()];
  const started = await startNpm(
    {
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      SURFACES: "api,mcp",
      API_PORT: String(apiPort),
      MCP_PORT: String(mcpPort),
      APP_KEY: TEST_APP_KEY.toString("hex"),
      LOG_LEVEL: "warn",
      DATABASE_CONNECT_TIMEOUT_MS: "2000",
      DATABASE_ACQUIRE_TIMEOUT_MS: "3000",
      ...env,
    },
    // npm's echo of the start script (`> exec …`): the process is under way (its /up is polled next).
    /^> exec /m,
  );
  const running = () => started.child.exitCode === null && started.child.signalCode === null;
  return { process: started, api: `http://127.0.0.1:${apiPort}`, mcp: `http://127.0.0.1:${mcpPort}`, running };
}

/** The status of GET `url` (0 when nothing answers), within `ms`. */
export async function statusOf(url: string, ms = 5_000): Promise<number> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(ms) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/** Milliseconds until `check` holds, polled every 100 ms; fails past `limitMs`. */
export async function msUntil(what: string, check: () => Promise<boolean>, limitMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > limitMs) assert.fail(`${what}: not within ${limitMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return Date.now() - started;
}

/** A request of the token's (a read, or a write with an Idempotency-Key), with its status, envelope code and time taken. */
export async function timedRequest(
  service: ChaosService,
  token: string,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
): Promise<{ status: number; code: string | null; ms: number; headers: Headers }> {
  const started = Date.now();
  const res = await fetch(`${service.api}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body ? { "content-type": "application/json", "idempotency-key": crypto.randomUUID() } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(30_000),
  });
  const answer = (await res.json().catch(() => null)) as { error?: { code: string } } | null;
  return { status: res.status, code: answer?.error?.code ?? null, ms: Date.now() - started, headers: res.headers };
}

/** A Redis server of the test's own on a free port, which the test may stop, start again and drop clients of. */
export interface PrivateRedis {
  url: string;
  start(): Promise<void>;
  /** Ends the server at once, nothing saved (as a crash or a restart would). */
  stop(): Promise<void>;
  /** redis-cli against it. */
  cli(...args: string[]): Promise<string>;
}

export async function privateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let server: ChildProcess | null = null;
  const cli = (...args: string[]) =>
    new Promise<string>((resolve) => {
      execFile("redis-cli", ["-p", String(port), ...args], (_err, stdout) => resolve(stdout.trim()));
    });
  const redis: PrivateRedis = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      server = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
      await msUntil("the private Redis answers", async () => (await cli("ping")) === "PONG", 10_000);
    },
    async stop() {
      const stopping = server;
      server = null;
      if (!stopping || stopping.exitCode !== null) return;
      const exited = new Promise((r) => stopping.once("exit", r));
      stopping.kill("SIGKILL");
      await exited;
    },
    cli,
  };
  await redis.start();
  return redis;
}
