// The recovery area's tenant tables.
import { tenantTable, type DomainContext } from "../../db/tenant.ts";

/** One recovery setting per connector installation. */
export const recoverySettingsTable = tenantTable("recovery_settings", { team: "team_id", project: "project_id" });

/** A setting's standby places: each resource of the installation and the place that stands in for it. */
export const resourceStandbysTable = tenantTable("recovery_resource_standbys", { team: "team_id", project: "project_id" });

export type RecoveryStatus = "healthy" | "degraded" | "lost";

export interface RecoverySettingRow {
  id: string;
  team_id: string;
  project_id: string;
  installation_id: string;
  connector_key: string;
  probes_enabled: boolean;
  probe_interval_minutes: number;
  standby_installation_id: string | null;
  mirror_enabled: boolean;
  mirror_source_resource_id: string | null;
  mirror_target_resource_id: string | null;
  identity_relink_enabled: boolean;
  status: RecoveryStatus | null;
  last_probe_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface StandbyPair {
  resource_id: string;
  standby_resource_id: string;
}

/**
 * A place of the installation was added or moved: the probe's next run (every 5 minutes) probes it
 * rather than waiting out the setting's interval, so a place the bot cannot administer is told
 * before a member pays for it. Nothing when probes are off.
 */
export async function requestProbe(ctx: DomainContext, installationId: string): Promise<void> {
  await recoverySettingsTable.rows(ctx).where({ installation_id: installationId, probes_enabled: true }).update({ probe_requested_at: ctx.now });
}
