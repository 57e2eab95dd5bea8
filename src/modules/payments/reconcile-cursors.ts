// What the reconciliation steps share (reconcile.ts, reconcile-stars.ts): the run's dependencies,
// the inbox check made before a report is normalized (which reads from the provider), and the
// cursor per provider account (payment_reconcile_cursors) that makes each run read only what is new.
import type Stripe from "stripe";
import { unscoped, type Db } from "../../db/tenant.ts";
import type { AccessSyncEnvironment } from "../connectors/access-sync.ts";
import type { ApplyOutcome } from "./apply.ts";
import type { OutcomeDeps } from "./outcome.ts";
import type { ProviderName } from "./provider.ts";

/** A provider page: Stripe lists and Telegram ledgers answer at most 100. */
export const PAGE = 100;
export const unix = (at: Date) => Math.floor(at.getTime() / 1000);

export interface Run extends OutcomeDeps {
  now: Date;
  stripe: Stripe | null;
  connectors: AccessSyncEnvironment;
}

/** Counts what changed: applied reports and superseded payments (refunded). */
export const changes = (outcomes: ApplyOutcome[]) => outcomes.filter((o) => o.outcome === "applied" || o.outcome === "superseded").length;

/** Whether the inbox has the event already (checked before a report is normalized, which reads from the provider). */
export async function seen(db: Db, provider: ProviderName, eventId: string): Promise<boolean> {
  const row = await unscoped(
    db,
    "the inbox is keyed by the provider's event id",
  )("payment_provider_events")
    .where({ provider, event_id: eventId })
    .first("event_id");
  return row !== undefined;
}

export async function cursorOf(db: Db, provider: ProviderName, account: string) {
  return (await unscoped(
    db,
    "a reconciliation cursor belongs to a provider account, not a team",
  )("payment_reconcile_cursors")
    .where({ provider, account })
    .first()) as { read_from: Date | null; ledger_offset: number } | undefined;
}

export async function saveCursor(db: Db, provider: ProviderName, account: string, now: Date, values: { read_from?: Date; ledger_offset?: number }) {
  await unscoped(
    db,
    "a reconciliation cursor belongs to a provider account, not a team",
  )("payment_reconcile_cursors")
    .insert({ provider, account, updated_at: now, ...values })
    .onConflict(["provider", "account"])
    .merge({ ...values, updated_at: now });
}

/** Runs `step` for each item; a failure is logged with `what` and the item, and the others go on. */
