// A project's recovery settings, one per connector installation: probes, a standby installation,
// standby places, a mirror and identity relink, each turned on only when the connector's manifest
// declares it. Every change records its activity entry on the project and its event.
import { randomUUID } from "node:crypto";
import { emptyFieldErrors, notFound, validationFailed, type FieldErrors } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { sortedPage, type PageWindow } from "../../db/pages.ts";
import { uniquely } from "../../db/unique.ts";
import { installationOf } from "../connectors/installations.ts";
import type { ConnectorEnvironment } from "../connectors/environment.ts";
import { iso, recordCatalogChange, requireProject } from "../resources/catalog-change.ts";
import {
  checkMirror,
  checkPairs,
  checkStandbyInstallation,
  declares,
  projectResources,
  undeclaredFeatures,
  type Feature,
  type MirrorState,
  type SettingOwner,
} from "./checks.ts";
import { recoverySettingsTable, resourceStandbysTable, type RecoverySettingRow, type StandbyPair } from "./tables.ts";

export const DEFAULT_PROBE_INTERVAL_MINUTES = 15;

export function presentSetting(row: RecoverySettingRow, pairs: readonly StandbyPair[]) {
  return {
    id: row.id,
    project_id: row.project_id,
    installation_id: row.installation_id,
    connector: row.connector_key,
    probes: { enabled: row.probes_enabled, interval_minutes: row.probe_interval_minutes },
    standby_installation_id: row.standby_installation_id,
    resource_standby: pairs.map((p) => ({ resource_id: p.resource_id, standby_resource_id: p.standby_resource_id })),
    mirror: { enabled: row.mirror_enabled, source_resource_id: row.mirror_source_resource_id, target_resource_id: row.mirror_target_resource_id },
    identity_relink: { enabled: row.identity_relink_enabled },
    status: row.status,
    last_probe_at: iso(row.last_probe_at),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

export type RecoverySetting = ReturnType<typeof presentSetting>;

/** The standby pairs of these settings, in each setting's order. */
export async function pairsOf(ctx: DomainContext, settingIds: readonly string[]): Promise<Map<string, StandbyPair[]>> {
  const byId = new Map(settingIds.map((id) => [id, [] as StandbyPair[]]));
  if (settingIds.length === 0) return byId;
  const rows = (await resourceStandbysTable
    .rows(ctx)
    .whereIn("setting_id", [...settingIds])
    .orderBy([{ column: "setting_id" }, { column: "position" }])
    .select("setting_id", "resource_id", "standby_resource_id")) as (StandbyPair & { setting_id: string })[];
  for (const row of rows) byId.get(row.setting_id)?.push({ resource_id: row.resource_id, standby_resource_id: row.standby_resource_id });
  return byId;
}

async function settingById(ctx: DomainContext, projectId: string, id: string): Promise<RecoverySettingRow> {
  const row = (await recoverySettingsTable.rows(ctx).where({ id, project_id: projectId }).first()) as RecoverySettingRow | undefined;
  if (!row) throw notFound("recovery setting");
  return row;
}

const SORT: Record<string, string> = { created_at: "created_at", updated_at: "updated_at", connector: "connector_key" };

export async function listSettings(ctx: DomainContext, projectId: string, window: PageWindow) {
  await requireProject(ctx, projectId);
  const query = recoverySettingsTable.rows(ctx).where({ project_id: projectId }).select("*");
  const { rows, total } = await sortedPage<RecoverySettingRow>(query, window, SORT);
  const pairs = await pairsOf(
    ctx,
    rows.map((r) => r.id),
  );
  return { rows: rows.map((r) => presentSetting(r, pairs.get(r.id)!)), total };
}

export async function getSetting(ctx: DomainContext, projectId: string, id: string) {
  await requireProject(ctx, projectId);
  const row = await settingById(ctx, projectId, id);
  return presentSetting(row, (await pairsOf(ctx, [id])).get(id)!);
}

export interface SettingChanges {
  probes?: { enabled?: boolean; interval_minutes?: number };
  standby_installation_id?: string | null;
  resource_standby?: StandbyPair[];
  mirror?: Partial<MirrorState>;
  identity_relink?: { enabled: boolean };
}

export interface SettingInput extends SettingChanges {
  connector: string;
}

/** The features `changes` turns on (only what the request itself switches on is checked). */
function turnedOn(changes: SettingChanges): Feature[] {
  const on: Feature[] = [];
  if (changes.probes?.enabled === true) on.push("probes");
  if (changes.standby_installation_id) on.push("standby_installations");
  if (changes.resource_standby?.length) on.push("resource_standby");
  if (changes.mirror?.enabled === true) on.push("mirror");
  if (changes.identity_relink?.enabled === true) on.push("identity_relink");
  return on;
}

/** The row and pairs after `changes`, checked: 404 for an id the token cannot see, 422 naming every field otherwise. */
async function applyChanges(ctx: DomainContext, env: ConnectorEnvironment, row: RecoverySettingRow, pairs: StandbyPair[], changes: SettingChanges) {
  const owner: SettingOwner = row;
  const fields: FieldErrors = emptyFieldErrors();
  undeclaredFeatures(env.connectors, row.connector_key, turnedOn(changes), fields);
  const next: RecoverySettingRow = { ...row, updated_at: ctx.now };
  if (changes.probes?.enabled !== undefined) next.probes_enabled = changes.probes.enabled;
  if (changes.probes?.interval_minutes !== undefined) next.probe_interval_minutes = changes.probes.interval_minutes;
  if (changes.identity_relink) next.identity_relink_enabled = changes.identity_relink.enabled;
  if (changes.standby_installation_id !== undefined) {
    next.standby_installation_id = changes.standby_installation_id;
    if (changes.standby_installation_id !== null) await checkStandbyInstallation(ctx, owner, changes.standby_installation_id, fields);
  }
  const mirror: MirrorState = {
    enabled: changes.mirror?.enabled ?? row.mirror_enabled,
    source_resource_id: changes.mirror?.source_resource_id !== undefined ? changes.mirror.source_resource_id : row.mirror_source_resource_id,
    target_resource_id: changes.mirror?.target_resource_id !== undefined ? changes.mirror.target_resource_id : row.mirror_target_resource_id,
  };
  const nextPairs = changes.resource_standby ?? pairs;
  const named = [
    ...(changes.resource_standby ?? []).flatMap((p) => [p.resource_id, p.standby_resource_id]),
    ...(changes.mirror ? [mirror.source_resource_id, mirror.target_resource_id].filter((id): id is string => id !== null) : []),
  ];
  const resources = await projectResources(ctx, row.project_id, named);
  if (changes.resource_standby) checkPairs(owner, changes.resource_standby, resources, fields);
  if (changes.mirror) checkMirror(env.connectors, owner, mirror, resources, fields);
  if (Object.keys(fields).length) throw validationFailed(fields);
  next.mirror_enabled = mirror.enabled;
  next.mirror_source_resource_id = mirror.source_resource_id;
  next.mirror_target_resource_id = mirror.target_resource_id;
  return { next, nextPairs };
}

/** Replaces a setting's standby pairs. */
async function storePairs(ctx: DomainContext, row: RecoverySettingRow, pairs: readonly StandbyPair[]): Promise<void> {
  await resourceStandbysTable.rows(ctx).where({ setting_id: row.id }).delete();
  if (pairs.length === 0) return;
  const rows = pairs.map((p, position) => ({
    id: randomUUID(),
    project_id: row.project_id,
    setting_id: row.id,
    ...p,
    position,
    created_at: ctx.now,
  }));
  await resourceStandbysTable.insert(ctx, rows);
}

const EDITABLE = [
  "probes_enabled",
  "probe_interval_minutes",
  "standby_installation_id",
  "mirror_enabled",
  "mirror_source_resource_id",
  "mirror_target_resource_id",
  "identity_relink_enabled",
  "updated_at",
] as const satisfies readonly (keyof RecoverySettingRow)[];

const SECOND_SETTING = "the project's installation of this connector already has a recovery setting; change that one";

/** A setting of `installation` with every feature off, as create starts from. */
function blankSetting(ctx: DomainContext, installation: { id: string; project_id: string; connector_key: string }): RecoverySettingRow {
  return {
    id: randomUUID(),
    team_id: ctx.actor.teamId,
    project_id: installation.project_id,
    installation_id: installation.id,
    connector_key: installation.connector_key,
    probes_enabled: false,
    probe_interval_minutes: DEFAULT_PROBE_INTERVAL_MINUTES,
    standby_installation_id: null,
    mirror_enabled: false,
    mirror_source_resource_id: null,
    mirror_target_resource_id: null,
    identity_relink_enabled: false,
    status: null,
    last_probe_at: null,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
}

/** Stores a new setting (a racing second one for the installation: 422 naming connector) and records it. */
async function storeNewSetting(ctx: DomainContext, next: RecoverySettingRow, nextPairs: StandbyPair[]) {
  const { team_id: _team, ...stored } = next;
  await uniquely(recoverySettingsTable.insert(ctx, stored), () => validationFailed({ connector: [SECOND_SETTING] }));
  await storePairs(ctx, next, nextPairs);
  const setting = presentSetting(next, nextPairs);
  await recordSettingChange(ctx, setting, "created");
  return setting;
}

export async function createSetting(ctx: DomainContext, env: ConnectorEnvironment, projectId: string, input: SettingInput) {
  const { connector, ...changes } = input;
  const installation = await installationOf(ctx, env, projectId, connector);
  if (await recoverySettingsTable.rows(ctx).where({ installation_id: installation.id }).first("id"))
    throw validationFailed({ connector: [SECOND_SETTING] });
  // Probes are on unless the creator turns them off, as on the default setting (when the connector has them).
  const start = { ...blankSetting(ctx, installation), probes_enabled: declares(env.connectors.packages.get(connector)?.manifest, "probes") };
  const { next, nextPairs } = await applyChanges(ctx, env, start, [], changes);
  return storeNewSetting(ctx, next, nextPairs);
}

/**
 * The default setting of an installation whose connector declares probes and that has none: probes
 * on, every DEFAULT_SETTING_PROBE_MINUTES, everything else off (the probe job writes it down the
 * first time it meets the installation). A racing second one answers 422 naming connector.
 */
export function createDefaultSetting(ctx: DomainContext, installation: { id: string; project_id: string; connector_key: string }) {
  return storeNewSetting(
    ctx,
    { ...blankSetting(ctx, installation), probes_enabled: true, probe_interval_minutes: DEFAULT_SETTING_PROBE_MINUTES },
    [],
  );
}

/** The default setting probes at every run of the job (a lost community is noticed within minutes; a probe is two cheap calls). */
export const DEFAULT_SETTING_PROBE_MINUTES = 5;

export async function updateSetting(ctx: DomainContext, env: ConnectorEnvironment, projectId: string, id: string, changes: SettingChanges) {
  await requireProject(ctx, projectId);
  const row = await settingById(ctx, projectId, id);
  const pairs = (await pairsOf(ctx, [id])).get(id)!;
  const { next, nextPairs } = await applyChanges(ctx, env, row, pairs, changes);
  // What a request can change; status and last_probe_at belong to the probes.
  const stored = Object.fromEntries(EDITABLE.map((column) => [column, next[column]]));
  await recoverySettingsTable.rows(ctx).where({ id }).update(stored);
  if (changes.resource_standby) await storePairs(ctx, next, nextPairs);
  const setting = presentSetting(next, nextPairs);
  await recordSettingChange(ctx, setting, "updated");
  return setting;
}

export async function deleteSetting(ctx: DomainContext, projectId: string, id: string) {
  await requireProject(ctx, projectId);
  const row = await settingById(ctx, projectId, id);
  const setting = presentSetting(row, (await pairsOf(ctx, [id])).get(id)!);
  await recoverySettingsTable.rows(ctx).where({ id }).delete();
  await recordSettingChange(ctx, setting, "deleted");
}

function recordSettingChange(ctx: DomainContext, setting: RecoverySetting, action: "created" | "updated" | "deleted") {
  return recordCatalogChange(ctx, {
    entity: "recovery_setting",
    action,
    label: `of ${setting.connector}`,
    shown: setting,
    subject: ["project", setting.project_id],
  });
}
