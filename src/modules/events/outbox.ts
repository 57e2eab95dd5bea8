// The events outbox. A state change the description names an event for writes the event here, in
// the change's own transaction (it exists if and only if the change committed), and the same
// statement queues one webhook delivery per subscribed endpoint (../webhooks/fan-out.ts). The
// envelope is fixed here: {id: evt_<ULID>, type, created_at, api_version, project_id, data}.
import { monotonicFactory } from "ulid";
import { tenantTable, unscoped, type DomainContext } from "../../db/tenant.ts";
import { writeEventAndQueueDeliveries, type OutboxRow } from "../webhooks/fan-out.ts";

/** The date that locks every event shape this release writes (Versioning, rule 3). */
export const EVENT_API_VERSION = "2026-11-23";

/** Events belong to their team, and to a project when they are about one (project_id non-null). */
export const eventsTable = tenantTable("events", { team: "team_id", project: "project_id" });

// Monotonic: ids made in the same millisecond still sort in creation order.
const ulid = monotonicFactory();

export interface EventEnvelope {
  id: string;
  type: string;
  created_at: string;
  api_version: string;
  project_id: string | null;
  data: Record<string, unknown>;
}

export async function emitEvent(
  ctx: DomainContext,
  event: { type: string; projectId?: string | null; data: Record<string, unknown> },
): Promise<EventEnvelope> {
  const envelope: EventEnvelope = {
    id: `evt_${ulid(ctx.now.getTime())}`,
    type: event.type,
    created_at: ctx.now.toISOString(),
    api_version: EVENT_API_VERSION,
    project_id: event.projectId ?? null,
    data: event.data,
  };
  const row = eventsTable.own(ctx, {
    id: envelope.id,
    project_id: envelope.project_id,
    type: envelope.type,
    api_version: envelope.api_version,
    data: JSON.stringify(envelope.data),
    created_at: ctx.now,
  }) as unknown as OutboxRow;
  await writeEventAndQueueDeliveries(
    unscoped(ctx, "the outbox row is owned by the actor's team (eventsTable.own); the fan-out joins it to that team's endpoints only"),
    row,
  );
  return envelope;
}

/** The outbox rows of the actor's team (oldest first), as envelopes. */
export async function teamEvents(ctx: DomainContext, options: { type?: string } = {}): Promise<EventEnvelope[]> {
  const query = eventsTable.rows(ctx).orderBy("id", "asc");
  if (options.type) query.where({ type: options.type });
  const rows = (await query.select("*")) as {
    id: string;
    type: string;
    created_at: Date;
    api_version: string;
    project_id: string | null;
    data: Record<string, unknown>;
  }[];
  return rows.map((r) => ({
    id: r.id,
    type: r.type,
    created_at: new Date(r.created_at).toISOString(),
    api_version: r.api_version,
    project_id: r.project_id,
    data: r.data,
  }));
}
