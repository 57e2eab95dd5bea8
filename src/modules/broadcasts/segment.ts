// Who a broadcast reaches: the connectors (the segment's, or every connector of the project's
// active installations that claims broadcasts) and the members of the project with an account on
// one of them, not banned, narrowed by the segment's plans, subscription statuses and join dates.
// Opted-out members stay in (they are counted as opted_out, and sent nothing).
import { addFieldError, emptyFieldErrors, validationFailed } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import type { ConnectorRegistry } from "../connectors/registry.ts";
import { installationsTable } from "../connectors/tables.ts";
import { membersTable } from "../members/tables.ts";
import { subscriptionsTable, type SubscriptionStatus } from "../subscriptions/tables.ts";
import type { Segment } from "./tables.ts";

export interface SegmentInput {
  plan_ids?: string[];
  subscription_statuses?: SubscriptionStatus[];
  connectors?: string[];
  joined_after?: string | null;
  joined_before?: string | null;
}

export interface Installation {
  id: string;
  project_id: string;
  connector_key: string;
}

/** The project's active installation of each connector (the first, when it has several). */
export async function activeInstallations(ctx: DomainContext, projectId: string): Promise<Map<string, Installation>> {
  const rows = (await installationsTable
    .rows(ctx)
    .where({ project_id: projectId, status: "active" })
    .orderBy(["created_at", "id"])
    .select("id", "project_id", "connector_key")) as Installation[];
  const byKey = new Map<string, Installation>();
  for (const row of rows) if (!byKey.has(row.connector_key)) byKey.set(row.connector_key, row);
  return byKey;
}

/** The manifest capability a connector claims when its bot can carry broadcasts. */
const CAPABILITY = "broadcasts";

const claimsBroadcasts = (registry: Pick<ConnectorRegistry, "packages">, key: string) =>
  registry.packages.get(key)?.manifest.capabilities?.includes(CAPABILITY) ?? false;

/** The segment as stored: its connectors settled (422 naming segment.connectors when one cannot broadcast). */
export async function settleSegment(
  ctx: DomainContext,
  registry: Pick<ConnectorRegistry, "packages">,
  projectId: string,
  input: SegmentInput,
): Promise<Segment> {
  const installed = await activeInstallations(ctx, projectId);
  const fields = emptyFieldErrors();
  let connectors: string[];
  if (input.connectors?.length) {
    connectors = input.connectors;
    for (const key of connectors) {
      if (!claimsBroadcasts(registry, key)) addFieldError(fields, "segment.connectors", `${key} does not offer broadcasts`);
      else if (!installed.has(key)) addFieldError(fields, "segment.connectors", `the project has no active ${key} installation`);
    }
  } else {
    connectors = [...installed.keys()].filter((key) => claimsBroadcasts(registry, key)).sort();
    if (!connectors.length)
      addFieldError(fields, "segment.connectors", "the project has no active installation of a connector that offers broadcasts");
  }
  const after = input.joined_after ?? null;
  const before = input.joined_before ?? null;
  if (after && before && new Date(before) <= new Date(after)) addFieldError(fields, "segment.joined_before", "must be after joined_after");
  if (Object.keys(fields).length) throw validationFailed(fields);
  return {
    plan_ids: input.plan_ids ?? [],
    subscription_statuses: input.subscription_statuses ?? [],
    connectors,
    joined_after: after && new Date(after).toISOString(),
    joined_before: before && new Date(before).toISOString(),
  };
}

export interface SegmentMember {
  id: string;
  connector_key: string;
  external_user_id: string;
  broadcasts_opted_out_at: Date | null;
}

/** The members `segment` reaches now, in the order they joined the project. */
export async function segmentMembers(ctx: DomainContext, projectId: string, segment: Segment): Promise<SegmentMember[]> {
  const query = membersTable
    .rows(ctx)
    .where("members.project_id", projectId)
    .whereIn("members.connector_key", segment.connectors)
    .whereNotNull("members.external_user_id")
    .whereNot("members.status", "banned");
  if (segment.plan_ids.length || segment.subscription_statuses.length) {
    const subscribed = subscriptionsTable.rows(ctx).select(1).whereRaw("subscriptions.member_id = members.id");
    if (segment.plan_ids.length) subscribed.whereIn("subscriptions.plan_id", segment.plan_ids);
    if (segment.subscription_statuses.length) subscribed.whereIn("subscriptions.status", segment.subscription_statuses);
    query.whereExists(subscribed);
  }
  if (segment.joined_after) query.whereRaw("coalesce(members.joined_at, members.created_at) >= ?", [new Date(segment.joined_after)]);
  if (segment.joined_before) query.whereRaw("coalesce(members.joined_at, members.created_at) < ?", [new Date(segment.joined_before)]);
  return (await query
    .orderBy([{ column: "members.created_at" }, { column: "members.id" }])
    .select("members.id", "members.connector_key", "members.external_user_id", "members.broadcasts_opted_out_at")) as SegmentMember[];
}
