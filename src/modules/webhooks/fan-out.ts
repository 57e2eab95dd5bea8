// The dispatcher's fan-out (Events, Delivery 1): an event written to the outbox queues one delivery
// per active endpoint of its team subscribed to it - a team-wide endpoint for every event of the
// team, a project's endpoint for that project's events only. It runs in the statement that writes
// the event, so the deliveries exist if and only if the change and its event committed, and a write
// pays no extra round trip for it. A subscription is an event name or a group ("plan.*"). A
// billing.* event reaches only endpoints registered by the team's owner now: billing:read is the
// owner's alone (built-in-roles.ts), so an endpoint of a former owner, or of anyone the ability
// check at registration missed, receives nothing of the owner's billing.
import type { Db } from "../../db/tenant.ts";

export interface OutboxRow {
  id: string;
  team_id: string;
  project_id: string | null;
  type: string;
  api_version: string;
  /** The event's data, serialised. */
  data: string;
  created_at: Date;
}

const WRITE_AND_FAN_OUT = `
with event as (
  insert into events (id, team_id, project_id, type, api_version, data, created_at)
  values (?, ?, ?, ?, ?, ?::jsonb, ?)
  returning id, team_id, project_id, type, created_at
)
insert into webhook_deliveries
  (id, team_id, endpoint_id, project_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
select gen_random_uuid(), event.team_id, endpoint.id, endpoint.project_id, event.id, event.type, 'queued', 0,
       event.created_at, event.created_at, event.created_at
from event
join webhook_endpoints endpoint
  on endpoint.team_id = event.team_id
 and endpoint.is_active
 and (endpoint.project_id is null or endpoint.project_id = event.project_id)
 and (not starts_with(event.type, 'billing.')
      or endpoint.created_by_user_id = (select team.owner_user_id from teams team where team.id = event.team_id))
where exists (
  select 1 from jsonb_array_elements_text(endpoint.events) as subscription(name)
  where subscription.name = event.type
     or (right(subscription.name, 2) = '.*' and starts_with(event.type, left(subscription.name, -1)))
)`;

/** Writes the event and queues its deliveries, in the caller's transaction (`db` is already scoped by the caller). */
export async function writeEventAndQueueDeliveries(db: Db, row: OutboxRow): Promise<void> {
  const bindings = [row.id, row.team_id, row.project_id, row.type, row.api_version, row.data, row.created_at];
  await db.raw(WRITE_AND_FAN_OUT, bindings);
}
