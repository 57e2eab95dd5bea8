// The deliveries as a work queue in PostgreSQL, shared by any number of workers on any number of
// machines. A worker claims due queued deliveries of active endpoints, fairly across teams and
// endpoints and within the in-flight caps (./limits.ts; FOR UPDATE SKIP LOCKED: two workers never
// claim one row) and leases them while it posts, outside any transaction; a worker
// killed mid-delivery leaves its lease to run out, and the delivery is claimed again (at least once,
// never lost). Outcomes are written back only under the claim that holds the lease, together with the
// endpoints' consecutive-failure counts, the disabling of an endpoint at 20, and its activity entry,
// in one transaction.
import { randomUUID } from "node:crypto";
import type { Database } from "../../db/database.ts";
import { createDomainContext, systemActor, unscoped } from "../../db/tenant.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { DISABLE_AFTER_FAILURES } from "./ladder.ts";
import { DEFAULT_WEBHOOK_LIMITS, type WebhookLimits } from "./limits.ts";

/** A claimed delivery with what sending it needs: its event and its endpoint. */
export interface ClaimedDelivery {
  id: string;
  team_id: string;
  /** The endpoint's project (null: a team-wide endpoint). */
  project_id: string | null;
  endpoint_id: string;
  attempts: number;
  claim_id: string;
  event: { id: string; type: string; created_at: string; api_version: string; project_id: string | null; data: Record<string, unknown> };
  endpoint: { url: string; secret_sealed: string; allowed_ips: string[] | null; created_by_user_id: string };
}

/** What one attempt came to. `failed`: counts toward the ladder and the endpoint's failures. */
export interface DeliveryOutcome {
  delivery: ClaimedDelivery;
  status: "delivered" | "queued" | "dead";
  failed: boolean;
  /** Nothing was posted: an address the endpoint may not receive at. */
  refused: boolean;
  attemptedAt: Date;
  nextAttemptAt: Date | null;
  responseStatus: number | null;
  excerpt: string;
  durationMs: number | null;
}

// Fair claiming: a noisy team or a slow endpoint cannot take every slot. Attempts in flight are
// the leased deliveries (a lease is cleared when the outcome is recorded), counted over every
// worker. Each active endpoint offers its oldest due deliveries up to its free in-flight places;
// within a team they are taken round-robin over its endpoints, up to the team's free places; and
// across teams the least loaded team's go first (load: its attempts in flight plus those taken in
// this claim). Claims take turns on an advisory lock (one short statement each), so concurrent
// workers count each other's leases and the caps hold across processes; SKIP LOCKED passes over
// rows an outcome being recorded holds.
const claimSql = (teams: number) => `
with leased as (
  select endpoint_id, team_id, count(*)::int as n
  from webhook_deliveries
  where lease_expires_at > ? and status = 'queued'
  group by endpoint_id, team_id
), team_leased as (
  select team_id, sum(n)::int as n from leased group by team_id
), offered as (
  select due.id, endpoint.team_id, due.next_attempt_at,
         coalesce(leased.n, 0) + row_number() over (partition by endpoint.id order by due.next_attempt_at, due.id) as endpoint_load
  from webhook_endpoints endpoint
  left join leased on leased.endpoint_id = endpoint.id
  cross join lateral (
    select delivery.id, delivery.next_attempt_at
    from webhook_deliveries delivery
    where delivery.endpoint_id = endpoint.id
      and delivery.status = 'queued'
      and delivery.next_attempt_at <= ?
      and (delivery.lease_expires_at is null or delivery.lease_expires_at <= ?)
    order by delivery.next_attempt_at, delivery.id
    limit ?
  ) due
  where endpoint.is_active
    and coalesce(leased.n, 0) < ?
    ${teams > 0 ? `and endpoint.team_id in (${Array(teams).fill("?").join(", ")})` : ""}
), ranked as (
  select offered.id, offered.next_attempt_at,
         coalesce(team_leased.n, 0) + row_number() over (partition by offered.team_id order by offered.endpoint_load, offered.next_attempt_at, offered.id) as team_load
  from offered
  left join team_leased on team_leased.team_id = offered.team_id
  where offered.endpoint_load <= ?
), picked as (
  select id from ranked where team_load <= ? order by team_load, next_attempt_at, id limit ?
), due as (
  select delivery.id
  from webhook_deliveries delivery
  where delivery.id in (select id from picked)
    and delivery.status = 'queued'
    and (delivery.lease_expires_at is null or delivery.lease_expires_at <= ?)
  for update of delivery skip locked
), claimed as (
  update webhook_deliveries delivery
  set lease_expires_at = ?, claim_id = ?
  from due where delivery.id = due.id
  returning delivery.id, delivery.team_id, delivery.project_id as endpoint_project_id, delivery.endpoint_id, delivery.event_id,
            delivery.attempts, delivery.claim_id
)
select claimed.*, event.type, event.project_id, event.api_version, event.data, event.created_at,
       endpoint.url, endpoint.secret_sealed, endpoint.allowed_ips, endpoint.created_by_user_id
from claimed
join events event on event.id = claimed.event_id
join webhook_endpoints endpoint on endpoint.id = claimed.endpoint_id`;

/** The advisory lock claims take turns on (any fixed bigint, not the migrations' or the jobs'). */
const CLAIM_LOCK = "5313092467716393";

interface ClaimRow {
  id: string;
  team_id: string;
  endpoint_project_id: string | null;
  endpoint_id: string;
  event_id: string;
  attempts: number;
  claim_id: string;
  type: string;
  project_id: string | null;
  api_version: string;
  data: Record<string, unknown> | string;
  created_at: Date | string;
  url: string;
  secret_sealed: string;
  allowed_ips: string[] | string | null;
  created_by_user_id: string;
}

const parsed = <T>(value: T | string): T => (typeof value === "string" ? (JSON.parse(value) as T) : value);

/**
 * Claims up to `limit` due deliveries at `now` (of some teams only, when `teams` names them), leased
 * for `leaseMs`, within the in-flight caps of `limits` (fairly: see claimSql).
 */
export async function claimDueDeliveries(
  db: Database,
  now: Date,
  limit: number,
  leaseMs: number,
  options: { teams?: readonly string[]; limits?: WebhookLimits } = {},
): Promise<ClaimedDelivery[]> {
  const teams = options.teams ?? [];
  const { inFlightPerEndpoint: perEndpoint, inFlightPerTeam: perTeam } = options.limits ?? DEFAULT_WEBHOOK_LIMITS;
  const claimId = randomUUID();
  const bindings = [now, now, now, perEndpoint, perEndpoint, ...teams, perEndpoint, perTeam, limit, now, new Date(now.getTime() + leaseMs), claimId];
  const rows = await unscoped(db, "the delivery workers serve every team's queue; each row keeps its team").transaction(async (trx) => {
    await trx.raw("select pg_advisory_xact_lock(?::bigint)", [CLAIM_LOCK]);
    return (await trx.raw(claimSql(teams.length), bindings)).rows as ClaimRow[];
  });
  return rows.map((r) => ({
    id: r.id,
    team_id: r.team_id,
    project_id: r.endpoint_project_id,
    endpoint_id: r.endpoint_id,
    attempts: r.attempts,
    claim_id: r.claim_id,
    event: {
      id: r.event_id,
      type: r.type,
      created_at: new Date(r.created_at).toISOString(),
      api_version: r.api_version,
      project_id: r.project_id,
      data: parsed(r.data),
    },
    endpoint: { url: r.url, secret_sealed: r.secret_sealed, allowed_ips: parsed(r.allowed_ips), created_by_user_id: r.created_by_user_id },
  }));
}

/** How much of an answer each attempt of the history keeps (the delivery keeps 1,024 of the last). */
export const HISTORY_EXCERPT_LENGTH = 256;

function attemptRow(o: DeliveryOutcome) {
  return {
    id: randomUUID(),
    team_id: o.delivery.team_id,
    delivery_id: o.delivery.id,
    project_id: o.delivery.project_id,
    attempt: o.delivery.attempts + 1,
    attempted_at: o.attemptedAt,
    outcome: o.status === "delivered" ? "delivered" : o.refused ? "refused" : "failed",
    response_status: o.responseStatus,
    duration_ms: o.durationMs,
    excerpt: o.excerpt.slice(0, HISTORY_EXCERPT_LENGTH),
  };
}

/** Per endpoint: failures after its last success in this batch, and whether one succeeded. */
function endpointTallies(outcomes: readonly DeliveryOutcome[]) {
  const tallies = new Map<string, { reset: boolean; failures: number }>();
  for (const o of outcomes) {
    const t = tallies.get(o.delivery.endpoint_id) ?? { reset: false, failures: 0 };
    if (o.status === "delivered") Object.assign(t, { reset: true, failures: 0 });
    else if (o.failed) t.failures += 1;
    tallies.set(o.delivery.endpoint_id, t);
  }
  return tallies;
}

/**
 * Writes a batch of outcomes (in the order the attempts finished). A delivery whose lease was taken
 * over by another claim keeps that claim's outcome. Answers the endpoints this batch disabled.
 */
export async function recordOutcomes(db: Database, outcomes: readonly DeliveryOutcome[], now: Date): Promise<string[]> {
  if (outcomes.length === 0) return [];
  return unscoped(db, "the delivery workers record outcomes of every team's deliveries").transaction(async (trx) => {
    const values = outcomes.map(() => "(?::uuid, ?::uuid, ?, ?::timestamptz, ?::timestamptz, ?::int, ?, ?::int)").join(", ");
    const bindings = outcomes.flatMap((o) => [
      o.delivery.id,
      o.delivery.claim_id,
      o.status,
      o.attemptedAt,
      o.nextAttemptAt,
      o.responseStatus,
      o.excerpt,
      o.durationMs,
    ]);
    const recorded = await trx.raw(
      `update webhook_deliveries delivery
       set status = v.status, attempts = delivery.attempts + 1, next_attempt_at = v.next_attempt_at,
           last_attempt_at = v.attempted_at,
           delivered_at = case when v.status = 'delivered' then v.attempted_at else delivery.delivered_at end,
           response_status = v.response_status, response_excerpt = v.excerpt, duration_ms = v.duration_ms,
           lease_expires_at = null, claim_id = null, updated_at = v.attempted_at
       from (values ${values}) as v(id, claim_id, status, attempted_at, next_attempt_at, response_status, excerpt, duration_ms)
       where delivery.id = v.id and delivery.claim_id = v.claim_id
       returning delivery.id`,
      bindings,
    );
    const kept = new Set((recorded.rows as { id: string }[]).map((r) => r.id));
    const history = outcomes.filter((o) => kept.has(o.delivery.id));
    if (history.length > 0) await trx("webhook_delivery_attempts").insert(history.map(attemptRow));
    const tallies = [...endpointTallies(outcomes.filter((o) => kept.has(o.delivery.id)))].filter(([, t]) => t.reset || t.failures > 0);
    if (tallies.length === 0) return [];
    await trx.raw(
      `update webhook_endpoints endpoint
       set consecutive_failures = case when v.reset then v.failures else endpoint.consecutive_failures + v.failures end
       from (values ${tallies.map(() => "(?::uuid, ?::boolean, ?::int)").join(", ")}) as v(id, reset, failures)
       where endpoint.id = v.id`,
      tallies.flatMap(([id, t]) => [id, t.reset, t.failures]),
    );
    const disabled = (await trx("webhook_endpoints")
      .whereIn(
        "id",
        tallies.map(([id]) => id),
      )
      .andWhere("is_active", true)
      .andWhere("consecutive_failures", ">=", DISABLE_AFTER_FAILURES)
      .update({ is_active: false, disabled_at: now, updated_at: now })
      .returning(["id", "team_id", "project_id", "name", "consecutive_failures"])) as {
      id: string;
      team_id: string;
      project_id: string | null;
      name: string;
      consecutive_failures: number;
    }[];
    for (const endpoint of disabled) {
      await recordActivity(createDomainContext(trx, systemActor(endpoint.team_id), now), {
        event: "disabled",
        description: `Webhook endpoint ${endpoint.name} disabled after ${endpoint.consecutive_failures} consecutive failed deliveries`,
        subjectType: "webhook-endpoint",
        subjectId: endpoint.id,
        projectId: endpoint.project_id,
        properties: { consecutive_failures: endpoint.consecutive_failures },
      });
    }
    return disabled.map((e) => e.id);
  });
}
