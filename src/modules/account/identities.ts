// A creator's identities: their accounts on connector platforms. A connector links one when it
// learns who the creator is there (a bot the creator signed in to, a settings page); the first is
// the primary. Identities and alert destinations belong to the person, whatever team a token acts
// on, so they are reached without tenant filters, naming why (users own them, not teams).
import { randomUUID } from "node:crypto";
import { uniquely } from "../../db/unique.ts";
import { ApiError, notFound } from "../../errors.ts";
import { unscoped, type DomainContext } from "../../db/tenant.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { CRITICAL_CLASSES } from "./alert-routing.ts";

type Creator = DomainContext & { actor: { userId: string } };

export interface IdentityRow {
  id: string;
  user_id: string;
  connector: string;
  account_id: string;
  display_name: string | null;
  is_primary: boolean;
  linked_at: Date;
}

export const personal = (ctx: DomainContext) => unscoped(ctx, "the creator's own identities and alert routing: owned by the person, not a team");

export function presentIdentity(row: IdentityRow) {
  return {
    id: row.id,
    connector: row.connector,
    account_id: row.account_id,
    display_name: row.display_name,
    is_primary: row.is_primary,
    linked_at: new Date(row.linked_at).toISOString(),
  };
}

/** The creator's identities, primary first, then by when they were linked. */
export async function identitiesOf(ctx: Creator): Promise<IdentityRow[]> {
  return (await personal(ctx)("identities")
    .where({ user_id: ctx.actor.userId })
    .orderBy([{ column: "is_primary", order: "desc" }, { column: "linked_at" }, { column: "id" }])) as IdentityRow[];
}

/** Whether the creator has destination rows (else the default routing applies). */
async function destinationRows(ctx: Creator) {
  return personal(ctx)("alert_destinations").where({ user_id: ctx.actor.userId }).orderBy("position");
}

async function appendDestination(ctx: Creator, destination: { kind: string; target: string; classes: readonly string[] | null }) {
  const db = personal(ctx);
  const last = (await db("alert_destinations").where({ user_id: ctx.actor.userId }).max({ p: "position" }).first()) as { p: number | null };
  await db("alert_destinations").insert({
    id: randomUUID(),
    user_id: ctx.actor.userId,
    kind: destination.kind,
    target: destination.target,
    classes: destination.classes === null ? null : JSON.stringify(destination.classes),
    position: (last?.p ?? -1) + 1,
    created_at: ctx.now,
  });
}

/** The creator's activity entry for an identity linked or unlinked (subject: the creator). */
function recordIdentityChange(ctx: Creator, change: "linked" | "unlinked", row: IdentityRow): Promise<void> {
  return recordActivity(ctx, {
    event: `identity_${change}`,
    description: `${row.connector} account ${change}`,
    subjectType: "creator",
    subjectId: ctx.actor.userId,
    properties: { identity: { id: row.id, connector: row.connector, account_id: row.account_id } },
  });
}

const linkedElsewhere = () =>
  new ApiError("VALIDATION_FAILED", "This account is already linked to another creator.", { context: { reason: "linked_elsewhere" } });

/**
 * Links an account on a connector's platform to the creator (the entry point connectors call).
 * The first identity becomes primary. Whenever the default routing applies (no rows), linking writes
 * it down as rows (the primary account for every class, email for the critical ones), so the
 * creator sees and can change where alerts go; another account is then added for every class.
 */
export async function linkIdentity(ctx: Creator, input: { connector: string; accountId: string; displayName?: string | null }) {
  const db = personal(ctx);
  const existing = (await db("identities").where({ connector: input.connector, account_id: input.accountId }).first()) as IdentityRow | undefined;
  if (existing && existing.user_id !== ctx.actor.userId) throw linkedElsewhere();
  if (existing) {
    await db("identities")
      .where({ id: existing.id })
      .update({ display_name: input.displayName ?? existing.display_name });
    return presentIdentity({ ...existing, display_name: input.displayName ?? existing.display_name });
  }
  const identities = await identitiesOf(ctx);
  const primary = identities.find((i) => i.is_primary);
  const row: IdentityRow = {
    id: randomUUID(),
    user_id: ctx.actor.userId,
    connector: input.connector,
    account_id: input.accountId,
    display_name: input.displayName ?? null,
    is_primary: primary === undefined,
    linked_at: ctx.now,
  };
  // Two creators linking one account at once: the unique index decides, and the loser hears why.
  await uniquely(db("identities").insert(row), linkedElsewhere, "identities_connector_account_id_unique");
  if ((await destinationRows(ctx)).length === 0) {
    const user = (await db("users").where({ id: ctx.actor.userId }).first("email")) as { email: string };
    await appendDestination(ctx, { kind: "connector_identity", target: (primary ?? row).account_id, classes: null });
    await appendDestination(ctx, { kind: "email", target: user.email, classes: CRITICAL_CLASSES });
  }
  if (primary) await appendDestination(ctx, { kind: "connector_identity", target: row.account_id, classes: null });
  await recordIdentityChange(ctx, "linked", row);
  return presentIdentity(row);
}

/** Unlinks an identity: its destination goes with it; the oldest remaining one becomes primary. */
export async function unlinkIdentity(ctx: Creator, id: string): Promise<void> {
  const db = personal(ctx);
  const row = (await db("identities").where({ id, user_id: ctx.actor.userId }).first()) as IdentityRow | undefined;
  if (!row) throw notFound("identity");
  await db("identities").where({ id }).delete();
  const remaining = await identitiesOf(ctx);
  if (!remaining.some((i) => i.account_id === row.account_id)) {
    await db("alert_destinations").where({ user_id: ctx.actor.userId, kind: "connector_identity", target: row.account_id }).delete();
  }
  if (row.is_primary && remaining.length) await db("identities").where({ id: remaining[0]!.id }).update({ is_primary: true });
  await recordIdentityChange(ctx, "unlinked", row);
}
