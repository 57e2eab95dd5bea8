// An endpoint's deliveries: durable rows the dispatcher writes (one per event and endpoint) and its
// workers move between queued, delivered and dead. Here they are listed and dead ones re-queued.
import type { DomainContext } from "../../db/tenant.ts";
import { ApiError, notFound } from "../../errors.ts";
import { sortedPage, type PageWindow } from "../../db/pages.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { iso } from "../resources/catalog-change.ts";
import { endpointById } from "./endpoints.ts";
import {
  webhookDeliveriesTable,
  webhookDeliveryAttemptsTable,
  type WebhookDeliveryAttemptRow,
  type WebhookDeliveryRow,
  type WebhookDeliveryStatus,
} from "./tables.ts";

function presentAttempt(row: WebhookDeliveryAttemptRow) {
  return {
    attempt: row.attempt,
    attempted_at: iso(row.attempted_at)!,
    outcome: row.outcome,
    response_status: row.response_status,
    duration_ms: row.duration_ms,
    excerpt: row.excerpt,
  };
}

export function presentDelivery(row: WebhookDeliveryRow, history: readonly WebhookDeliveryAttemptRow[]) {
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    project_id: row.project_id,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: iso(row.next_attempt_at),
    last_attempt_at: iso(row.last_attempt_at),
    delivered_at: iso(row.delivered_at),
    response_status: row.response_status,
    response_excerpt: row.response_excerpt,
    duration_ms: row.duration_ms,
    attempt_history: history.map(presentAttempt),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

/** The attempts of `deliveries`, oldest first. */
async function attemptsOf(ctx: DomainContext, deliveryIds: string[]): Promise<WebhookDeliveryAttemptRow[]> {
  if (!deliveryIds.length) return [];
  return (await webhookDeliveryAttemptsTable
    .rows(ctx)
    .whereIn("delivery_id", deliveryIds)
    .orderBy([{ column: "attempted_at" }, { column: "attempt" }])
    .select("*")) as WebhookDeliveryAttemptRow[];
}

export async function listDeliveries(ctx: DomainContext, endpointId: string, status: WebhookDeliveryStatus | undefined, window: PageWindow) {
  await endpointById(ctx, endpointId);
  const query = webhookDeliveriesTable.rows(ctx).where({ endpoint_id: endpointId });
  if (status) query.where({ status });
  const { rows, total } = await sortedPage<WebhookDeliveryRow>(query.select("*"), window, { created_at: "created_at" });
  const attempts = await attemptsOf(
    ctx,
    rows.map((r) => r.id),
  );
  return {
    rows: rows.map((r) =>
      presentDelivery(
        r,
        attempts.filter((a) => a.delivery_id === r.id),
      ),
    ),
    total,
  };
}

/**
 * Re-queues the dead deliveries the actor can see (of one endpoint, or all): a fresh set of
 * attempts, the next one now. Each endpoint concerned gets an activity entry. Answers how many.
 */
export async function retryDeadDeliveries(ctx: DomainContext, endpointId: string | undefined): Promise<number> {
  if (endpointId !== undefined) await endpointById(ctx, endpointId);
  const dead = () => {
    const query = webhookDeliveriesTable.rows(ctx).where({ status: "dead" });
    return endpointId === undefined ? query : query.where({ endpoint_id: endpointId });
  };
  const concerned = (await dead().select("endpoint_id", "project_id").count({ n: "*" }).groupBy("endpoint_id", "project_id")) as {
    endpoint_id: string;
    project_id: string | null;
    n: string | number;
  }[];
  const requeued = Number(await dead().update({ status: "queued", attempts: 0, next_attempt_at: ctx.now, updated_at: ctx.now }));
  for (const { endpoint_id, project_id, n } of concerned) {
    await recordActivity(ctx, {
      event: "deliveries_requeued",
      description: `${Number(n)} dead webhook deliveries re-queued`,
      subjectType: "webhook-endpoint",
      subjectId: endpoint_id,
      projectId: project_id,
      properties: { requeued: Number(n) },
    });
  }
  return requeued;
}

/**
 * Replays one delivery in a final state (delivered or dead): queued again for an attempt now with a
 * fresh round of attempts, the same event to the same endpoint, so the receiver sees the same event
 * id. A queued one (its attempts still running) is refused. The endpoint gets an activity entry.
 */
export async function replayDelivery(ctx: DomainContext, deliveryId: string) {
  // One conditional statement: a worker finishing an attempt at the same moment cannot be overtaken.
  const [replayed] = (await webhookDeliveriesTable
    .rows(ctx)
    .where({ id: deliveryId })
    .whereIn("status", ["delivered", "dead"])
    .update({ status: "queued", attempts: 0, next_attempt_at: ctx.now, delivered_at: null, updated_at: ctx.now })
    .returning("*")) as WebhookDeliveryRow[];
  if (!replayed) {
    const found = (await webhookDeliveriesTable.rows(ctx).where({ id: deliveryId }).first("status")) as { status: WebhookDeliveryStatus } | undefined;
    if (!found) throw notFound("webhook delivery");
    throw new ApiError("WEBHOOK_DELIVERY_IN_PROGRESS", "This delivery is still queued: its attempts are running.", {
      context: { delivery_id: deliveryId, status: found.status },
      remediation: "Wait until it is delivered or dead, then replay it.",
    });
  }
  await recordActivity(ctx, {
    event: "delivery_replayed",
    description: `Webhook delivery of ${replayed.event_type} (${replayed.event_id}) replayed`,
    subjectType: "webhook-endpoint",
    subjectId: replayed.endpoint_id,
    projectId: replayed.project_id,
    properties: { delivery_id: replayed.id, event_id: replayed.event_id },
  });
  return presentDelivery(replayed, await attemptsOf(ctx, [replayed.id]));
}
