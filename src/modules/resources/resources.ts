// A project's resources. The kind comes from the manifest of a connector installed on the project;
// its grant mode is copied at creation. Places (bearer_link, membership, role) name their spot on
// the platform; creator_task kinds (manual perks) have none.
import { randomUUID } from "node:crypto";
import type { ResourceKind } from "../../../generated/connector-manifest.d.ts";
import { addFieldError, domainRefusal, emptyFieldErrors, notFound, validationFailed, type FieldErrors } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { sortedPage, type PageWindow } from "../../db/pages.ts";
import type { ConnectorRegistry } from "../connectors/registry.ts";
import { installationsTable, type InstallationRow } from "../connectors/tables.ts";
import { queuePlatformTask } from "../connectors/platform-tasks.ts";
import { planResourcesTable } from "../plans/tables.ts";
import { requestProbe } from "../recovery/tables.ts";
import { grantsTable, LIVE_GRANT_STATUSES } from "../subscriptions/tables.ts";
import { iso, recordCatalogChange, requireProject } from "./catalog-change.ts";
import { resourcesTable, type ResourceRow } from "./tables.ts";

export function presentResource(row: ResourceRow) {
  return {
    id: row.id,
    project_id: row.project_id,
    connector: row.connector_key,
    kind: row.kind,
    grant_mode: row.grant_mode,
    title: row.title,
    description: row.description,
    platform_ref: row.platform_ref,
    early_admission_hold: row.early_admission_hold,
    active: row.active,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

export type Resource = ReturnType<typeof presentResource>;

/** A resource the actor can see (of `projectId` when given), or 404. */
export async function resourceById(ctx: DomainContext, id: string, projectId?: string): Promise<ResourceRow> {
  const query = resourcesTable.rows(ctx).where({ id });
  if (projectId !== undefined) query.andWhere({ project_id: projectId });
  const row = (await query.first()) as ResourceRow | undefined;
  if (!row) throw notFound("resource");
  return row;
}

const SORT: Record<string, string> = { created_at: "created_at", title: "lower(title)" };

export async function listResources(ctx: DomainContext, projectId: string, window: PageWindow) {
  await requireProject(ctx, projectId);
  const { rows, total } = await sortedPage<ResourceRow>(resourcesTable.rows(ctx).where({ project_id: projectId }).select("*"), window, SORT);
  return { rows: rows.map(presentResource), total };
}

export async function getResource(ctx: DomainContext, projectId: string, id: string) {
  await requireProject(ctx, projectId);
  return presentResource(await resourceById(ctx, id, projectId));
}

function kindOf(registry: ConnectorRegistry, connector: string, kind: string): ResourceKind | undefined {
  return registry.packages.get(connector)?.manifest.resource_kinds?.find((k) => k.kind === kind);
}

/** The installation and manifest kind a new resource of `kind` belongs to, or 422. */
async function installedKind(ctx: DomainContext, registry: ConnectorRegistry, projectId: string, kind: string, connector?: string) {
  const installed = (await installationsTable.rows(ctx).where({ project_id: projectId }).select("id", "connector_key")) as {
    id: string;
    connector_key: string;
  }[];
  if (connector !== undefined) {
    const installation = installed.find((i) => i.connector_key === connector);
    if (!installation) throw validationFailed({ connector: [`the connector ${connector} is not installed on this project`] });
    const spec = kindOf(registry, connector, kind);
    if (!spec) throw validationFailed({ kind: [`the connector ${connector} offers no resource kind ${kind}`] });
    return { installation, spec };
  }
  const offering = installed.flatMap((installation) => {
    const spec = kindOf(registry, installation.connector_key, kind);
    return spec ? [{ installation, spec }] : [];
  });
  if (offering.length === 0) throw validationFailed({ kind: [`no connector installed on this project offers the resource kind ${kind}`] });
  if (offering.length > 1) {
    const keys = offering.map((o) => o.installation.connector_key).join(", ");
    throw validationFailed({ connector: [`several installed connectors offer ${kind} (${keys}); name one`] });
  }
  return offering[0]!;
}

/** The place and hold rules of a kind, as field errors. */
function placementErrors(
  grantMode: string,
  supportsHold: boolean,
  values: { platform_ref: string | null; early_admission_hold: boolean },
): FieldErrors {
  const fields = emptyFieldErrors();
  if (grantMode === "creator_task" && values.platform_ref !== null)
    addFieldError(fields, "platform_ref", "a creator_task kind has no place on the platform; leave platform_ref out");
  if (grantMode !== "creator_task" && values.platform_ref === null)
    addFieldError(fields, "platform_ref", `a ${grantMode} kind needs its place on the platform (platform_ref)`);
  if (values.early_admission_hold && !supportsHold)
    addFieldError(fields, "early_admission_hold", "this kind does not support an early admission hold");
  return fields;
}

function refuseOn(fields: FieldErrors): void {
  if (Object.keys(fields).length) throw validationFailed(fields);
}

export interface ResourceInput {
  connector?: string;
  kind: string;
  title: string;
  description?: string | null;
  platform_ref?: string | null;
  early_admission_hold?: boolean;
  active?: boolean;
}

/**
 * A hold turned on: the installation's bot is pointed at its updates again after the commit, so a
 * bot set up before chat_join_request was asked for receives its join requests (join-requests.ts).
 */
async function askForJoinRequests(ctx: DomainContext, env: { baseUrl: string } | undefined, installationId: string | null) {
  if (!env || !installationId) return;
  const installation = (await installationsTable.rows(ctx).where({ id: installationId, status: "active" }).first()) as InstallationRow | undefined;
  if (installation) await queuePlatformTask(ctx, env, installation, "deliver_updates");
}

export async function createResource(
  ctx: DomainContext,
  registry: ConnectorRegistry,
  projectId: string,
  input: ResourceInput,
  env?: { baseUrl: string },
) {
  await requireProject(ctx, projectId);
  const { installation, spec } = await installedKind(ctx, registry, projectId, input.kind, input.connector);
  const placement = { platform_ref: input.platform_ref ?? null, early_admission_hold: input.early_admission_hold ?? false };
  refuseOn(placementErrors(spec.grant_mode, spec.supports_early_admission_hold === true, placement));
  const row = {
    id: randomUUID(),
    project_id: projectId,
    installation_id: installation.id,
    connector_key: installation.connector_key,
    kind: spec.kind,
    grant_mode: spec.grant_mode,
    title: input.title,
    description: input.description ?? null,
    ...placement,
    active: input.active ?? true,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  await resourcesTable.insert(ctx, row);
  if (row.platform_ref !== null && row.active) await requestProbe(ctx, installation.id);
  if (row.early_admission_hold) await askForJoinRequests(ctx, env, installation.id);
  const resource = presentResource({ ...row, team_id: ctx.actor.teamId });
  await recordResourceChange(ctx, resource, "created");
  return resource;
}

export type ResourceUpdate = Partial<Pick<ResourceInput, "title" | "description" | "platform_ref" | "early_admission_hold" | "active">>;

export async function updateResource(
  ctx: DomainContext,
  registry: ConnectorRegistry,
  projectId: string,
  id: string,
  input: ResourceUpdate,
  env?: { baseUrl: string },
) {
  await requireProject(ctx, projectId);
  const row = await resourceById(ctx, id, projectId);
  const next: ResourceRow = { ...row, ...input, updated_at: ctx.now } as ResourceRow;
  const supportsHold = kindOf(registry, row.connector_key, row.kind)?.supports_early_admission_hold === true;
  // Only what changes is checked: a hold kept from before stays, even if the package changed.
  const fields = placementErrors(row.grant_mode, supportsHold || !input.early_admission_hold, next);
  refuseOn(fields);
  const changes: Record<string, unknown> = { updated_at: ctx.now };
  for (const key of ["title", "description", "platform_ref", "early_admission_hold", "active"] as const)
    if (input[key] !== undefined) changes[key] = input[key];
  await resourcesTable.rows(ctx).where({ id }).update(changes);
  const placed = next.platform_ref !== row.platform_ref || (next.active && !row.active);
  if (placed && next.platform_ref !== null && next.active && row.installation_id) await requestProbe(ctx, row.installation_id);
  if (input.early_admission_hold === true && !row.early_admission_hold) await askForJoinRequests(ctx, env, row.installation_id);
  const resource = presentResource(next);
  await recordResourceChange(ctx, resource, "updated");
  return resource;
}

export async function deleteResource(ctx: DomainContext, projectId: string, id: string) {
  await requireProject(ctx, projectId);
  const row = await resourceById(ctx, id, projectId);
  const planIds: string[] = await planResourcesTable.rows(ctx).where({ resource_id: id }).pluck("plan_id");
  if (planIds.length)
    throw domainRefusal("Plans still grant this resource; remove it from them first, or set active to false.", { plan_ids: planIds.sort() });
  const held = await grantsTable
    .rows(ctx)
    .where({ resource_id: id })
    .whereIn("status", [...LIVE_GRANT_STATUSES])
    .first("id");
  if (held) throw domainRefusal("Members hold or await this resource; set active to false instead.", { resource_id: id });
  await resourcesTable.rows(ctx).where({ id }).delete();
  await recordResourceChange(ctx, presentResource(row), "deleted");
}

function recordResourceChange(ctx: DomainContext, resource: Resource, action: "created" | "updated" | "deleted") {
  return recordCatalogChange(ctx, { entity: "resource", action, label: resource.title, shown: resource, subject: ["project-resource", resource.id] });
}
