// Where a creator's alerts go: the rows of alert_destinations, replaced whole by PUT. Empty means
// the default routing (alert-routing.ts). Targets are the creator's own: a linked account's id or
// their own address; anything else answers 404 and writes nothing.
import { randomUUID } from "node:crypto";
import { ApiError } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { recordActivity } from "../activity/activity-log.ts";
import type { AlertClass } from "./alert-routing.ts";
import { identitiesOf, personal } from "./identities.ts";

type Creator = DomainContext & { actor: { userId: string } };

export interface DestinationInput {
  kind: "connector_identity" | "email";
  target: string;
  classes?: AlertClass[] | null;
}

interface DestinationRow {
  kind: "connector_identity" | "email" | "push_device";
  target: string;
  classes: AlertClass[] | null;
  position: number;
}

/** The creator's destinations, primary first, then in the order they were given. */
export async function listDestinations(ctx: Creator) {
  const identities = await identitiesOf(ctx);
  const primary = identities.find((i) => i.is_primary)?.account_id;
  const rows = (await personal(ctx)("alert_destinations").where({ user_id: ctx.actor.userId }).orderBy("position")) as DestinationRow[];
  const present = (r: DestinationRow) => ({
    kind: r.kind,
    target: r.target,
    classes: r.classes,
    is_primary: r.kind === "connector_identity" && r.target === primary,
  });
  const listed = rows.map(present);
  return [...listed.filter((d) => d.is_primary), ...listed.filter((d) => !d.is_primary)];
}

export async function replaceDestinations(ctx: Creator, destinations: DestinationInput[]) {
  const db = personal(ctx);
  const accounts = new Set((await identitiesOf(ctx)).map((i) => i.account_id));
  const user = (await db("users").where({ id: ctx.actor.userId }).first("email")) as { email: string };
  const foreign = destinations.find((d) => (d.kind === "email" ? d.target.toLowerCase() !== user.email.toLowerCase() : !accounts.has(d.target)));
  if (foreign) {
    throw new ApiError(
      "RESOURCE_NOT_FOUND",
      `${foreign.target} is not one of your ${foreign.kind === "email" ? "addresses" : "linked accounts"}; nothing was changed.`,
      {
        context: { kind: foreign.kind, target: foreign.target },
      },
    );
  }
  await db("alert_destinations").where({ user_id: ctx.actor.userId }).delete();
  const rows = destinations.map((d, position) => ({
    id: randomUUID(),
    user_id: ctx.actor.userId,
    kind: d.kind,
    target: d.kind === "email" ? user.email : d.target,
    classes: d.classes === undefined || d.classes === null ? null : JSON.stringify(d.classes),
    position,
    created_at: ctx.now,
  }));
  if (rows.length) await db("alert_destinations").insert(rows);
  await recordActivity(ctx, {
    event: "alert_destinations_replaced",
    description: rows.length ? `Alert routing set (${rows.length} destinations)` : "Alert routing back to the default",
    subjectType: "creator",
    subjectId: ctx.actor.userId,
    properties: { destinations: destinations.map((d) => ({ kind: d.kind, target: d.target, classes: d.classes ?? null })) },
  });
  return listDestinations(ctx);
}
