// Stock floors for scripts/bench/pipeline-ceilings.ts: the work the service description asks of
// each measured case, done with the stock libraries alone and nothing of ours, so that a goal can
// be read against what any honest server built on this stack reaches. What each one does per
// request, and what it leaves out that ours does (validation, abilities, tenancy, the error
// envelope, sliding windows, the request's deadline):
//   floor-read   a request id; the bearer's SHA-256 looked up in a map (a warm credential cache);
//                one EVALSHA counting two fixed windows; the rate-limit headers; the team's row by
//                knex's query builder; a JSON answer; one pino line (batched, as ours) and a
//                prom-client counter and histogram
//   floor-list   the same around 25 tokens with their count in one statement
//   floor-write  the same around the idempotency lock (SET NX PX) and a knex transaction with the
//                idempotent write's statements: one read, then five inserts in four statements (the
//                alert and its mail in one, as ours)
//   floor-write-one  the same with the five inserts in one statement (a chain of data-modifying
//                CTEs, the ids made beforehand): the fewest round trips these rows could take
//   floor-mcp    the same stock layer before the MCP SDK's stateless handler, whose per-request
//                Server answers tools/call with the team's row: the SDK's own cost over floor-read
// The principals come in FLOOR_PRINCIPALS ({"<SHA-256 hex of the Authorization header>":
// {"teamId", "userId"}}); the tables are the migrated service's, plus bench_writes (write1).
import { createHash, randomUUID } from "node:crypto";
import Koa from "koa";
import knex from "knex";
import pino from "pino";
import { Counter, Histogram, Registry } from "prom-client";
import { createClient } from "redis";
import { createMcpHandler, Server } from "@modelcontextprotocol/server";

interface Principal {
  teamId: string;
  userId: string;
}

interface FloorState {
  principal: Principal;
  requestId: string;
}

/** Two fixed windows (a minute and an hour), counted and expired in one round trip. */
const WINDOWS_SCRIPT = `
local counts = {}
for i = 1, 2 do
  counts[i] = redis.call('INCR', KEYS[i])
  if counts[i] == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[i]) end
end
return counts`;
const LIMITS = [1e12, 1e12];

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

export const BENCH_WRITES_TABLE =
  "create table if not exists bench_writes (id bigserial primary key, team_id uuid not null, name text not null, data jsonb not null, created_at timestamptz not null default now())";

/**
 * Stock knex on the service's pool size. An idle connection is closed after a second: a run keeps
 * more than a dozen servers, which must not hold PostgreSQL's 100 connections between their slices
 * (each slice's warm-up opens them again before it is measured).
 */
export const stockDb = () => knex({ client: "pg", connection: process.env.DATABASE_URL!, pool: { min: 0, max: 10, idleTimeoutMillis: 1000 } });

async function stockParts() {
  const db = stockDb();
  const redis = createClient({ url: process.env.REDIS_URL!, commandOptions: { timeout: 0 } });
  await redis.connect();
  const sha = await redis.scriptLoad(WINDOWS_SCRIPT);
  const logger = pino({ base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ dest: 1, sync: true, minLength: 4096 }));
  const registry = new Registry();
  const labelNames = ["operation", "status"] as const;
  const requests = new Counter({ name: "floor_requests_total", help: "requests", labelNames, registers: [registry] });
  const seconds = new Histogram({ name: "floor_request_seconds", help: "duration", labelNames, registers: [registry] });
  const principals = new Map(Object.entries(JSON.parse(process.env.FLOOR_PRINCIPALS ?? "{}") as Record<string, Principal>));

  /** The request's own work around `next`: identity, budget, headers, the log line and the metrics. */
  const layer =
    (operation: string): Koa.Middleware =>
    async (ctx, next) => {
      const started = process.hrtime.bigint();
      const requestId = randomUUID();
      ctx.set("X-Request-Id", requestId);
      const principal = principals.get(sha256(ctx.get("authorization")));
      if (!principal) {
        ctx.status = 401;
        ctx.body = { error: { code: "AUTHENTICATION_REQUIRED" } };
      } else {
        const counts = (await redis.evalSha(sha, {
          keys: [`floor:m:${principal.teamId}`, `floor:h:${principal.teamId}`],
          arguments: ["60000", "3600000"],
        })) as number[];
        ctx.set({ "RateLimit-Limit": String(LIMITS[0]), "RateLimit-Remaining": String(LIMITS[0]! - counts[0]!), "RateLimit-Reset": "60" });
        (ctx.state as FloorState).principal = principal;
        (ctx.state as FloorState).requestId = requestId;
        await next();
      }
      const duration = Number(process.hrtime.bigint() - started) / 1e9;
      logger.info({ request_id: requestId, method: ctx.method, path: ctx.path, status: ctx.status, operation, duration_ms: duration * 1000 });
      requests.inc({ operation, status: String(ctx.status) });
      seconds.observe({ operation, status: String(ctx.status) }, duration);
    };

  const team = async (principal: Principal) => {
    const row = (await db("teams").where({ id: principal.teamId }).first("id", "name", "owner_user_id", "personal", "created_at")) as {
      created_at: Date;
    };
    return { ...row, created_at: new Date(row.created_at).toISOString() };
  };
  return { db, redis, layer, team };
}

type Parts = Awaited<ReturnType<typeof stockParts>>;

/** A floor's Koa: quiet about requests the load generator drops mid-body as a slice ends. */
function quietKoa(): Koa {
  const app = new Koa();
  app.silent = true;
  return app;
}

async function readBody(ctx: Koa.Context): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const iso = (value: Date | null) => (value ? new Date(value).toISOString() : null);

function listApp({ db, layer }: Parts): Koa {
  const app = quietKoa();
  app.use(layer("list_tokens"));
  app.use(async (ctx) => {
    const { principal } = ctx.state as FloorState;
    const visible = db("personal_access_tokens").where({ team_id: principal.teamId, user_id: principal.userId }).whereNull("revoked_at");
    const total = visible.clone().count({ n: "*" });
    const rows = (await visible
      .clone()
      .select("id", "name", "kind", "abilities", "project_ids", "last_used_at", "expires_at", "created_at", total.as("__total"))
      .orderByRaw("created_at desc nulls last, id desc")
      .limit(25)) as { __total: string; last_used_at: Date | null; expires_at: Date | null; created_at: Date }[];
    const data = rows.map(({ __total, ...row }) => ({
      ...row,
      last_used_at: iso(row.last_used_at),
      expires_at: iso(row.expires_at),
      created_at: iso(row.created_at),
    }));
    const url = `/v1/tokens?per_page=25`;
    ctx.body = {
      data,
      meta: { total: Number(rows[0]?.__total ?? 0), page: 1, per_page: 25 },
      links: { first: url, last: url, prev: null, next: null },
    };
  });
  return app;
}

function writeApp({ db, redis, layer }: Parts, oneStatement: boolean): Koa {
  const app = quietKoa();
  app.use(layer("create_token"));
  app.use(async (ctx) => {
    const { principal } = ctx.state as FloorState;
    const body = JSON.parse(await readBody(ctx)) as { name: string; abilities: string[] };
    const lock = `floor:idem:${sha256(ctx.get("authorization"))}:${sha256(ctx.get("idempotency-key"))}`;
    if ((await redis.set(lock, "running", { NX: true, PX: 30_000 })) === null) {
      ctx.status = 409;
      return;
    }
    const row = (name: string, data: unknown) => ({ team_id: principal.teamId, name, data: JSON.stringify(data) });
    const token = await db.transaction(async (trx) => {
      if (oneStatement) {
        const user = (await trx("users").where({ id: principal.userId }).first("email")) as { email: string };
        const answer = { id: randomUUID(), name: body.name, abilities: body.abilities };
        const rows = [
          row(body.name, { id: answer.id, abilities: body.abilities, hash: randomUUID() }),
          row("activity", { event: "created", subject: answer.id }),
          row("alert", { title: "A token was minted", to: user.email }),
          row("mail", { to: user.email, subject: "A token was minted" }),
          row("kept", { status: 201, body: answer }),
        ];
        const insert = "insert into bench_writes (team_id, name, data) values (?, ?, ?::jsonb)";
        const ctes = rows.slice(1).map((_, i) => `r${i} as (${insert})`);
        await trx.raw(
          `with ${ctes.join(", ")} ${insert}`,
          [...rows.slice(1), rows[0]!].flatMap((r) => [r.team_id, r.name, r.data]),
        );
        return answer;
      }
      const [inserted] = (await trx("bench_writes")
        .insert(row(body.name, { abilities: body.abilities, hash: randomUUID() }))
        .returning("id")) as {
        id: string;
      }[];
      await trx("bench_writes").insert(row("activity", { event: "created", subject: inserted!.id }));
      const user = (await trx("users").where({ id: principal.userId }).first("email")) as { email: string };
      const alert = trx("bench_writes")
        .insert(row("alert", { title: "A token was minted", to: user.email }))
        .returning("team_id");
      await trx.raw("with alert as (?) insert into bench_writes (team_id, name, data) select team_id, 'mail', ?::jsonb from alert", [
        alert,
        JSON.stringify({ to: user.email, subject: "A token was minted" }),
      ]);
      const answer = { id: inserted!.id, name: body.name, abilities: body.abilities };
      await trx("bench_writes").insert(row("kept", { status: 201, body: answer }));
      return answer;
    });
    ctx.status = 201;
    ctx.body = { data: token, token: randomUUID() };
  });
  return app;
}

function mcpApp({ layer, team }: Parts): Koa {
  const handler = createMcpHandler(
    (request) => {
      const principal = request.authInfo?.extra?.principal as Principal;
      const server = new Server(
        { name: "floor", version: "1" },
        { supportedProtocolVersions: ["2026-07-28"], capabilities: { tools: { listChanged: false } } },
      );
      server.setRequestHandler("tools/call", async () => {
        const data = await team(principal);
        return { content: [{ type: "text" as const, text: JSON.stringify({ data }) }], structuredContent: { data } };
      });
      return server;
    },
    { legacy: "reject" },
  );
  const app = quietKoa();
  app.use(layer("tools/call"));
  app.use(async (ctx) => {
    const { principal, requestId } = ctx.state as FloorState;
    const parsedBody = JSON.parse(await readBody(ctx)) as unknown;
    const headers = new Headers();
    for (const [name, value] of Object.entries(ctx.req.headers)) if (typeof value === "string") headers.set(name, value);
    const response = await handler.fetch(new Request(`http://${ctx.host}${ctx.url}`, { method: "POST", headers }), {
      authInfo: { token: requestId, clientId: "floor", scopes: [], extra: { principal } },
      parsedBody,
    });
    ctx.status = response.status;
    for (const [name, value] of response.headers) ctx.set(name, value);
    ctx.body = Buffer.from(await response.arrayBuffer());
  });
  return app;
}

/** The floor server BENCH_TARGET names, or null when it names none. */
export async function floorApp(target: string): Promise<Koa | null> {
  if (!target.startsWith("floor-")) return null;
  const parts = await stockParts();
  if (target === "floor-list") return listApp(parts);
  if (target === "floor-mcp") return mcpApp(parts);
  if (target === "floor-write" || target === "floor-write-one") {
    await parts.db.raw(BENCH_WRITES_TABLE);
    return writeApp(parts, target === "floor-write-one");
  }
  const app = quietKoa();
  app.use(parts.layer("get_current_team"));
  app.use(async (ctx) => {
    ctx.body = { data: await parts.team((ctx.state as FloorState).principal) };
  });
  return app;
}
