// The member list a creator dashboard pages through: GET /v1/projects/{project}/members with each
// filter (q, plan_id, platform, access, status) and combined, and GET .../members/{member}, on a
// project of 10,000 members (each with a subscription and one or two grants), one request at a time.
//   npx tsx --conditions=subbridge-source scripts/bench/members-list.ts      embedded (PGlite on disk)
//   BENCH_DATABASE_URL=postgres://… npx tsx --conditions=subbridge-source scripts/bench/members-list.ts
// Writes scripts/bench/results/members-list-<backend>.json. Recorded, never asserted.
import { randomBytes } from "node:crypto";
import { MemoryKv } from "../../src/kv/memory.ts";
import { machine, writeResults } from "./results-file.ts";
import { openBenchApi } from "./bench-api.ts";

const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);

async function main() {
  const api = await openBenchApi(new MemoryKv());
  const { db, baseUrl, token } = api;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": randomBytes(8).toString("hex") },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json = (await res.json()) as any;
    if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };

  // The catalogue and 10,000 members, inserted in bulk: 2 plans, 3 resources; a member in 10 on
  // discord, every member subscribed (a third to the second plan, a tenth of them ended), grants
  // granted, pending or failed.
  const project = (await call("POST", "/v1/projects", { name: "Bench members" })).data;
  const seedStarted = performance.now();
  await db.raw(
    `insert into plans (id, team_id, project_id, name, amount_minor, currency, billing_cycle, billing_cycle_count, trial_days, status, published_at, created_at, updated_at)
     select gen_random_uuid(), p.team_id, p.id, 'Plan ' || n, 500, 'USD', 'month', 1, 0, 'published', now(), now(), now() from projects p, generate_series(1, 2) n where p.id = ?`,
    [project.id],
  );
  await db.raw(
    `insert into resources (id, team_id, project_id, connector_key, kind, grant_mode, title, created_at, updated_at)
     select gen_random_uuid(), p.team_id, p.id, 'telegram', 'telegram-channel', 'membership', 'Place ' || n, now(), now() from projects p, generate_series(1, 3) n where p.id = ?`,
    [project.id],
  );
  const plans = (await db("plans").where({ project_id: project.id }).orderBy("name").pluck("id")) as string[];
  const resources = (await db("resources").where({ project_id: project.id }).orderBy("title").pluck("id")) as string[];
  const links = [
    [plans[0], resources[0], 0],
    [plans[1], resources[0], 0],
    [plans[1], resources[1], 1],
  ];
  for (const [planId, resourceId, position] of links)
    await db("plan_resources").insert({ plan_id: planId, resource_id: resourceId, team_id: project.team_id, project_id: project.id, position });
  await db.raw(
    `insert into members (id, team_id, project_id, connector_key, external_user_id, display_name, email, status, joined_at, created_at, updated_at)
     select gen_random_uuid(), p.team_id, p.id, case when n % 10 = 0 then 'discord' else 'telegram' end, (100000000 + n)::text,
       'Member ' || n || ' ' || md5(n::text), case when n % 4 = 0 then 'm' || n || '@example.test' end,
       case when n % 10 = 3 then 'churned' else 'customer' end, now() - (n || ' minutes')::interval, now() - (n || ' minutes')::interval, now()
     from projects p, generate_series(1, ?) n where p.id = ?`,
    [MEMBERS, project.id],
  );
  await db.raw(
    `insert into subscriptions (id, team_id, project_id, member_id, plan_id, status, source, started_at, ends_at, created_at, updated_at)
     select gen_random_uuid(), m.team_id, m.project_id, m.id, case when m.external_user_id::bigint % 3 = 0 then ? else ? end::uuid,
       case when m.status = 'churned' then 'expired' else 'active' end, 'access_code', m.created_at, now() + interval '30 days', m.created_at, now()
     from members m where m.project_id = ?`,
    [plans[1], plans[0], project.id],
  );
  await db.raw(
    `insert into access_grants (id, team_id, project_id, subscription_id, member_id, resource_id, grant_mode, status, granted_at, platform_attempts, platform_error, created_at, updated_at)
     select gen_random_uuid(), s.team_id, s.project_id, s.id, s.member_id, pr.resource_id, 'membership',
       case when s.status = 'expired' then 'revoked' when m.external_user_id::bigint % 7 = 0 then 'pending' else 'granted' end,
       case when m.external_user_id::bigint % 7 = 0 then null else now() end,
       case when m.external_user_id::bigint % 49 = 0 then 2 else 0 end, case when m.external_user_id::bigint % 49 = 0 then 'refused: bench' end,
       now(), now()
     from subscriptions s join members m on m.id = s.member_id join plan_resources pr on pr.plan_id = s.plan_id where s.project_id = ?`,
    [project.id],
  );
  await db.raw("analyze members; analyze subscriptions; analyze access_grants");
  const seedMs = Math.round(performance.now() - seedStarted);
  const someMember = (await db("members").where({ project_id: project.id }).orderBy("created_at").first("id")).id as string;

  const list = `/v1/projects/${project.id}/members`;
  const scenarios: [string, string][] = [
    ["list, no filter", list],
    ["list, status=customer", `${list}?status=customer`],
    ["list, q=member 42 (name)", `${list}?q=member%2042`],
    ["list, q=EXAMPLE.test (email)", `${list}?q=EXAMPLE.test`],
    ["list, q=zzz (no match)", `${list}?q=zzz`],
    ["list, plan_id", `${list}?plan_id=${plans[1]}`],
    ["list, platform=discord", `${list}?platform=discord`],
    ["list, access=granted", `${list}?access=granted`],
    ["list, access=pending", `${list}?access=pending`],
    ["list, access=failed", `${list}?access=failed`],
    ["list, access=none", `${list}?access=none`],
    ["list, combined (plan_id, platform, access, q)", `${list}?plan_id=${plans[0]}&platform=telegram&access=granted&q=member`],
    ["list, page 200, sort display_name", `${list}?page=200&per_page=25&sort_by=display_name&sort_direction=asc`],
    ["get_member", `${list}/${someMember}`],
  ];
  const results = [];
  for (const [name, path] of scenarios) {
    const first = await call("GET", path); // warm-up (JIT, plan cache)
    const times: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const t0 = performance.now();
      await call("GET", path);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const round = (n: number) => Math.round(n * 10) / 10;
    results.push({
      scenario: name,
      total: first.meta?.total ?? null,
      rounds: ROUNDS,
      ms: { median: round(times[Math.floor(times.length / 2)]!), max: round(times.at(-1)!) },
    });
    console.log(JSON.stringify(results.at(-1)));
  }
  const backend = api.backend;
  const report = {
    $comment: "generated by scripts/bench/members-list.ts; machine-dependent, recorded not asserted",
    backend,
    members: MEMBERS,
    seed_ms: seedMs,
    machine: machine(),
    results,
  };
  writeResults(`members-list-${backend}`, report);
  await api.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
