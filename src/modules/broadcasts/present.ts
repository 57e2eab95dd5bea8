// A broadcast and its recipients as the API shows them: totals counted from the recipient rows,
// and the status a started broadcast has (sending while any is queued, then sent).
import type { DomainContext } from "../../db/tenant.ts";
import { iso } from "../resources/catalog-change.ts";
import { RECIPIENT_STATUSES, recipientsTable, type BroadcastRow, type RecipientRow, type RecipientStatus } from "./tables.ts";

export type Totals = Record<RecipientStatus, number> & { recipients: number };

const zero = (): Totals => ({ recipients: 0, queued: 0, sent: 0, blocked: 0, failed: 0, opted_out: 0 });

/** Each broadcast's totals, in one grouped read. */
export async function totalsOf(ctx: DomainContext, ids: readonly string[]): Promise<Map<string, Totals>> {
  const totals = new Map(ids.map((id) => [id, zero()]));
  if (!ids.length) return totals;
  const rows = (await recipientsTable
    .rows(ctx)
    .whereIn("broadcast_id", [...ids])
    .groupBy("broadcast_id", "status")
    .select("broadcast_id", "status")
    .count({ n: "*" })) as {
    broadcast_id: string;
    status: RecipientStatus;
    n: number | string;
  }[];
  for (const row of rows) {
    const t = totals.get(row.broadcast_id)!;
    if (RECIPIENT_STATUSES.includes(row.status)) t[row.status] += Number(row.n);
    t.recipients += Number(row.n);
  }
  return totals;
}

export function presentBroadcast(row: BroadcastRow, totals: Totals) {
  const status = row.status === "started" ? (totals.queued > 0 ? "sending" : "sent") : row.status;
  return {
    id: row.id,
    project_id: row.project_id,
    text: row.text,
    image_url: row.image_url,
    buttons: row.buttons,
    segment: row.segment,
    test: row.test,
    status: status as "scheduled" | "sending" | "sent" | "canceled",
    send_at: iso(row.send_at)!,
    started_at: iso(row.started_at),
    canceled_at: iso(row.canceled_at),
    created_by_user_id: row.created_by_user_id,
    totals,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

export type Broadcast = ReturnType<typeof presentBroadcast>;

export function presentRecipient(row: RecipientRow) {
  return {
    id: row.id,
    broadcast_id: row.broadcast_id,
    member_id: row.member_id,
    connector: row.connector_key,
    platform_user_id: row.platform_user_id,
    status: row.status,
    error: row.error,
    sent_at: iso(row.sent_at),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}
