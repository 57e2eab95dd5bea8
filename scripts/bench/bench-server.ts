// One server for scripts/bench/pipeline-ceilings.ts, started in its own process (pinned to one
// core by the caller). BENCH_TARGET picks what it serves:
//   bare      Koa answering a constant: the HTTP ceiling
//   select1   Koa + one knex `select 1` on the pool: the one-query ceiling
//   select1-redis  the same after one Redis EVALSHA: the floor of a request admitted through Redis
//   write1    Koa + a stock knex transaction with one insert: the write ceiling
//   write4    the same transaction with four inserts (a write and its records: row, event, activity, kept answer)
//   api       the REST surface as `npm start` builds it (PostgreSQL, Redis, logs at info), from the
//             compiled build unless BENCH_SOURCES=1 (scripts/bench/server-modules.ts)
//   mcp       the MCP surface, likewise
//   floor-*   the stock floors of the measured cases (scripts/bench/floor-servers.ts)
// Prints "listening <port>" once it accepts connections.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import Koa from "koa";
import { createClient } from "redis";
import { BENCH_WRITES_TABLE, floorApp, stockDb } from "./floor-servers.ts";
import { serverModules } from "./server-modules.ts";

async function app(target: string): Promise<Koa> {
  const floor = await floorApp(target);
  if (floor) return floor;
  if (target === "bare") {
    const bare = new Koa();
    bare.use(async (ctx) => {
      ctx.body = { ok: true };
    });
    return bare;
  }
  if (target === "select1-redis") {
    // The floor of any Redis-admitted request: one EVALSHA (as the admission script) and one query.
    const db = stockDb();
    const redis = createClient({ url: process.env.REDIS_URL!, commandOptions: { timeout: 0 } });
    await redis.connect();
    const sha = await redis.scriptLoad("return redis.call('INCR', KEYS[1])");
    const floor = new Koa();
    floor.use(async (ctx) => {
      await redis.evalSha(sha, { keys: ["bench:floor"], arguments: [] });
      ctx.body = { ok: (await db.raw("select 1 as one")).rows[0].one === 1 };
    });
    return floor;
  }
  if (target === "write1" || target === "write4") {
    // Stock knex writes on the same pool size: each request inserts rows about a token's size
    // into a table of its own (created here), in one transaction.
    const db = stockDb();
    await db.raw(BENCH_WRITES_TABLE);
    const inserts = target === "write1" ? 1 : 4;
    const writes = new Koa();
    writes.use(async (ctx) => {
      const row = { team_id: randomUUID(), name: "bench", data: { abilities: ["team:view"], hash: randomUUID() } };
      const ids = await db.transaction(async (trx) => {
        const out: unknown[] = [];
        for (let i = 0; i < inserts; i++) out.push((await trx("bench_writes").insert(row).returning("id"))[0]);
        return out;
      });
      ctx.status = 201;
      ctx.body = { ids };
    });
    return writes;
  }
  if (target === "select1") {
    const db = stockDb();
    const one = new Koa();
    one.use(async (ctx) => {
      ctx.body = { ok: (await db.raw("select 1 as one")).rows[0].one === 1 };
    });
    return one;
  }
  const {
    loadConfig,
    openServices,
    handlers,
    preflights,
    createApiApp,
    createMcpApp,
    loadConnectorRegistry,
    openPlatforms,
    REST_BUDGET,
    MCP_BUDGET,
    UNAUTHENTICATED_MCP_BUDGET,
  } = await serverModules();
  const config = loadConfig(process.env, "bench");
  const services = await openServices(config);
  const connectors = loadConnectorRegistry(config.connectorsDir);
  const platforms = (await openPlatforms(config.platforms)).endpoints;
  // Budgets no benchmark reaches: this measures the pipeline, not the limiter's refusals (the
  // counters are still incremented on every request).
  const generous = (budget: typeof REST_BUDGET) => budget.map((w) => ({ ...w, limit: 1e12 }));
  if (target === "api") {
    return createApiApp({
      db: services.db,
      kv: services.kv,
      appKey: services.appKey,
      handlers,
      preflights,
      now: services.now,
      release: config.release,
      baseUrl: config.api.url,
      docsUrl: config.docs.url,
      authUrl: config.auth.url,
      mcpUrl: config.mcp.url,
      budget: generous(REST_BUDGET),
      logger: services.logger,
      connectors,
      platforms,
      portalUrl: config.portal.url,
    });
  }
  return createMcpApp({
    db: services.db,
    kv: services.kv,
    invocations: services.activity,
    awaitInvocationEntries: config.mcpInvocationEntries === "committed",
    handlers,
    preflights,
    now: services.now,
    release: config.release,
    mcpUrl: config.mcp.url,
    baseUrl: config.api.url,
    authUrl: config.auth.url,
    docsUrl: config.docs.url,
    logger: services.logger,
    budget: generous(MCP_BUDGET),
    unauthenticatedBudget: UNAUTHENTICATED_MCP_BUDGET,
    allowedHosts: ["127.0.0.1"],
    allowedOrigins: [],
    connectors,
    platforms,
    appKey: services.appKey,
    portalUrl: config.portal.url,
  });
}

const server = createServer((await app(process.env.BENCH_TARGET ?? "bare")).callback());
server.listen(0, "127.0.0.1", () => console.log(`listening ${(server.address() as { port: number }).port}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
