// The REST API in this process for the in-process benchmarks (rest-latency, members-list): a
// database of its own (BENCH_DATABASE_URL: a fresh PostgreSQL database, dropped at the end; else
// the embedded one npm start opens, in a temp dir), migrated, a creator with an all-abilities
// token, and the API app on a loopback port.
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import knex from "knex";
import pino from "pino";
import { migrate, openConfiguredDatabase, type Database } from "../../src/db/database.ts";
import type { Kv } from "../../src/kv/kv.ts";
import { createApiApp } from "../../src/apps/api/api-app.ts";
import { handlers, preflights } from "../../src/modules/handlers.ts";
import { createCreatorAccount, mintTokenForCreator } from "../../src/operator.ts";
import { benchAppDeps } from "./app-deps.ts";

export interface BenchApi {
  db: Database;
  baseUrl: string;
  /** An all-abilities token of the benchmark's creator. */
  token: string;
  /** "postgres" with BENCH_DATABASE_URL, else "embedded". */
  backend: "postgres" | "embedded";
  close(): Promise<void>;
}

/** `databaseUrl`: null for the embedded database whatever BENCH_DATABASE_URL says (a benchmark of it alone). */
export async function openBenchApi(
  kv: Kv,
  { databaseUrl = process.env.BENCH_DATABASE_URL ?? null }: { databaseUrl?: string | null } = {},
): Promise<BenchApi> {
  let benchDbUrl: string | null = null;
  let admin: knex.Knex | null = null;
  if (databaseUrl) {
    const name = `subbridge_bench_${randomBytes(4).toString("hex")}`;
    admin = knex({ client: "pg", connection: databaseUrl, pool: { min: 0, max: 1 } });
    await admin.raw(`CREATE DATABASE ${name}`);
    const url = new URL(databaseUrl);
    url.pathname = `/${name}`;
    benchDbUrl = url.toString();
  }
  const database = await openConfiguredDatabase({ url: benchDbUrl, dataDir: mkdtempSync(join(tmpdir(), "sb-bench-")), mode: "own" });
  const { db } = database;
  await migrate(db);
  const email = `bench-${randomBytes(4).toString("hex")}@example.test`;
  await createCreatorAccount(db, { email, password: "benchmark password", tier: "growth" }, new Date());
  const { token } = await mintTokenForCreator(db, { email, abilities: "all" }, new Date());

  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const app = createApiApp({
    db,
    kv,
    handlers,
    preflights,
    now: () => new Date(),
    release: "bench",
    baseUrl,
    docsUrl: "http://docs.invalid",
    authUrl: "http://auth.invalid",
    mcpUrl: "http://mcp.invalid",
    // A budget no benchmark reaches: this measures the pipeline, not the limiter's refusals.
    budget: [{ name: "minute", limit: 1e9, windowMs: 60_000 }],
    logger: pino({ level: "silent" }),
    ...(await benchAppDeps()),
  });
  server.on("request", app.callback());
  return {
    db,
    baseUrl,
    token,
    backend: databaseUrl ? "postgres" : "embedded",
    async close() {
      server.close();
      await database.close();
      if (admin && benchDbUrl) {
        await admin.raw(`DROP DATABASE ${new URL(benchDbUrl).pathname.slice(1)} WITH (FORCE)`);
        await admin.destroy();
      }
    },
  };
}
