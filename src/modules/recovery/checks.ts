// What a recovery setting may hold: the features its connector's manifest declares, a standby
// installation of the same connector in the team, and places that are the project's resources of
// the setting's connector. Ids the token cannot see answer 404 at once; every other refusal is a
// field error, collected so one answer names them all.
import type { ConnectorManifest } from "../../../generated/connector-manifest.d.ts";
import { addFieldError, ApiError, type FieldErrors } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import type { ConnectorRegistry } from "../connectors/registry.ts";
import { installationsTable } from "../connectors/tables.ts";
import { resourcesTable, type ResourceRow } from "../resources/tables.ts";
import type { StandbyPair } from "./tables.ts";

export const FEATURES = ["probes", "standby_installations", "resource_standby", "mirror", "identity_relink"] as const;
export type Feature = (typeof FEATURES)[number];

/** The field a request turns each feature on with (the one a refusal names). */
export const FEATURE_FIELD: Record<Feature, string> = {
  probes: "probes.enabled",
  standby_installations: "standby_installation_id",
  resource_standby: "resource_standby",
  mirror: "mirror.enabled",
  identity_relink: "identity_relink.enabled",
};

/**
 * Whether the manifest declares a recovery feature: its `recovery` object when that names the
 * feature (an explicit false wins), else its capabilities (recovery_<feature>).
 */
export function declares(manifest: ConnectorManifest | undefined, feature: Feature): boolean {
  if (!manifest) return false;
  const stated = manifest.recovery?.[feature];
  if (stated !== undefined) return stated;
  const capability = `recovery_${feature}` as const;
  return (manifest.capabilities ?? []).includes(capability);
}

/** A field error for each feature turned on that the connector does not declare. */
export function undeclaredFeatures(registry: ConnectorRegistry, connector: string, turnedOn: readonly Feature[], fields: FieldErrors): void {
  const manifest = registry.packages.get(connector)?.manifest;
  for (const feature of turnedOn) {
    if (!declares(manifest, feature))
      addFieldError(fields, FEATURE_FIELD[feature], `the connector ${connector} does not declare the recovery feature ${feature}`);
  }
}

/** The setting a check is about: its own installation and connector. */
export interface SettingOwner {
  project_id: string;
  installation_id: string;
  connector_key: string;
}

/** The standby installation: visible (404 otherwise), another installation of the same connector. */
export async function checkStandbyInstallation(ctx: DomainContext, owner: SettingOwner, id: string, fields: FieldErrors): Promise<void> {
  const row = (await installationsTable.rows(ctx).where({ id }).first("id", "connector_key")) as { id: string; connector_key: string } | undefined;
  if (!row)
    throw new ApiError("RESOURCE_NOT_FOUND", `No installation ${id} is visible to this token.`, {
      context: { installation_id: id },
      remediation: "Name an installation of the same connector on another project of the team.",
    });
  if (row.id === owner.installation_id)
    addFieldError(fields, "standby_installation_id", "is the setting's own installation; name another installation of the same connector");
  else if (row.connector_key !== owner.connector_key)
    addFieldError(
      fields,
      "standby_installation_id",
      `is an installation of ${row.connector_key}; a standby runs the same connector (${owner.connector_key})`,
    );
}

export type ResourcesById = ReadonlyMap<string, ResourceRow>;

/** The project's resources of these ids; the first id that names none answers 404 naming it. */
export async function projectResources(ctx: DomainContext, projectId: string, ids: readonly string[]): Promise<ResourcesById> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return new Map();
  const rows = (await resourcesTable.rows(ctx).where({ project_id: projectId }).whereIn("id", wanted).select("*")) as ResourceRow[];
  const found = new Map(rows.map((r) => [r.id, r]));
  const missing = wanted.find((id) => !found.has(id));
  if (missing)
    throw new ApiError("RESOURCE_NOT_FOUND", `No resource ${missing} in this project is visible to this token.`, {
      context: { resource_id: missing },
    });
  return found;
}

/** A place of the setting's connector (a creator_task perk has no place): its errors under `field`. */
function placeErrors(owner: SettingOwner, resource: ResourceRow, field: string, fields: FieldErrors): void {
  if (resource.connector_key !== owner.connector_key)
    addFieldError(fields, field, `is a resource of ${resource.connector_key}; name one of the setting's connector (${owner.connector_key})`);
  else if (resource.grant_mode === "creator_task") addFieldError(fields, field, "is a creator_task resource, which has no place on the platform");
}

/** Standby pairs: places of the connector, each protected once, stood in for by another place of its kind. */
export function checkPairs(owner: SettingOwner, pairs: readonly StandbyPair[], resources: ResourcesById, fields: FieldErrors): void {
  const seen = new Set<string>();
  pairs.forEach((pair, i) => {
    const at = `resource_standby.${i}`;
    const resource = resources.get(pair.resource_id)!;
    const standby = resources.get(pair.standby_resource_id)!;
    placeErrors(owner, resource, `${at}.resource_id`, fields);
    placeErrors(owner, standby, `${at}.standby_resource_id`, fields);
    if (seen.has(pair.resource_id)) addFieldError(fields, `${at}.resource_id`, "is already protected by an earlier pair");
    seen.add(pair.resource_id);
    if (pair.resource_id === pair.standby_resource_id)
      addFieldError(fields, `${at}.standby_resource_id`, "must be another resource than resource_id");
    else if (resource.kind !== standby.kind)
      addFieldError(fields, `${at}.standby_resource_id`, `must be of the same kind as the resource (${resource.kind})`);
  });
}

export interface MirrorState {
  enabled: boolean;
  source_resource_id: string | null;
  target_resource_id: string | null;
}

/** The mirror: both places when enabled; the source a place, the target of a mirrorable kind, the two different. */
export function checkMirror(
  registry: ConnectorRegistry,
  owner: SettingOwner,
  mirror: MirrorState,
  resources: ResourcesById,
  fields: FieldErrors,
): void {
  for (const key of ["source_resource_id", "target_resource_id"] as const) {
    if (mirror.enabled && mirror[key] === null) addFieldError(fields, `mirror.${key}`, "is required while the mirror is enabled");
  }
  const source = mirror.source_resource_id === null ? undefined : resources.get(mirror.source_resource_id);
  const target = mirror.target_resource_id === null ? undefined : resources.get(mirror.target_resource_id);
  if (source) placeErrors(owner, source, "mirror.source_resource_id", fields);
  if (!target) return;
  placeErrors(owner, target, "mirror.target_resource_id", fields);
  const kinds = registry.packages.get(target.connector_key)?.manifest.resource_kinds ?? [];
  if (kinds.find((k) => k.kind === target.kind)?.mirrorable !== true)
    addFieldError(fields, "mirror.target_resource_id", `is a ${target.kind}, a kind that cannot receive a mirror`);
  if (source && source.id === target.id) addFieldError(fields, "mirror.target_resource_id", "must be another resource than the source");
}
