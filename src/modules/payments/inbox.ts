// The inbox of provider reports (payment_provider_events): each is stored once by its provider id
// before it is acted on, in the transaction of what it causes, tagged with the team it matched,
// and marked with what applying it did and why (issue 43: a mismatched report is kept with its reason).
import { unscoped, type Db, type DomainContext } from "../../db/tenant.ts";
import type { ProviderEvent, ProviderName } from "./provider.ts";

/** Stores the event in the inbox; false when it was there already. */
export async function firstArrival(db: Db, provider: ProviderName, event: ProviderEvent, now: Date): Promise<boolean> {
  const inbox = unscoped(db, "a provider event names no team until it is matched");
  const stored = await inbox("payment_provider_events")
    .insert({ provider, event_id: event.eventId, kind: event.kind, received_at: now })
    .onConflict(["provider", "event_id"])
    .ignore()
    .returning("event_id");
  return (stored as unknown[]).length === 1;
}

export async function tagInbox(ctx: DomainContext, provider: ProviderName, event: ProviderEvent): Promise<void> {
  await unscoped(
    ctx,
    "the inbox row is tagged with the team it matched",
  )("payment_provider_events")
    .where({ provider, event_id: event.eventId })
    .update({ team_id: ctx.actor.teamId });
}

/** Writes what applying the event did on its inbox row. */
export async function recordInboxOutcome(
  db: Db,
  provider: ProviderName,
  event: ProviderEvent,
  outcome: string,
  reason: string | null,
): Promise<void> {
  await unscoped(
    db,
    "the inbox row records what applying it did",
  )("payment_provider_events")
    .where({ provider, event_id: event.eventId })
    .update({ outcome, reason });
}
