// Recovery probes (issue 34): every installation whose recovery setting has probes on is checked
// through its driver once per interval_minutes (the bot's token, the bot still an administrator of
// each gated place, each gated role still there for the bot to give). The verdict fills the setting's status and last_probe_at; a change records its
// activity entry and event, and a change for the worse raises a recovery alert (email and the
// creators' connected accounts) in the same transaction. An unreachable platform is no verdict.
import type { Logger } from "pino";
import { createDomainContext, systemActor, unscoped, type Db, type DomainContext } from "../../db/tenant.ts";
import type { AccessSyncEnvironment } from "../connectors/access-sync.ts";
import { installationSession } from "../connectors/bot/session.ts";
import { PlatformError, type ProbeResult } from "../connectors/drivers/driver.ts";
import type { InstallationRow } from "../connectors/tables.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { emitEvent } from "../events/outbox.ts";
import { raiseAlert } from "../alerts/raise.ts";
import { probeAlert, type ProbedPlace } from "./probe-alerts.ts";
import { useStandbys } from "./standby.ts";
import { createDefaultSetting, pairsOf, presentSetting } from "./recovery-settings.ts";
import { declares } from "./checks.ts";
import type { ConnectorRegistry } from "../connectors/registry.ts";
import { ApiError } from "../../errors.ts";
import { recoverySettingsTable, type RecoverySettingRow, type RecoveryStatus } from "./tables.ts";

/** Modes whose resources are places the bot must administer (a creator task is none). */
const PLACE_MODES = ["bearer_link", "membership"];
/** The mode whose resources are roles the bot must be able to give (Discord's). */
const ROLE_MODE = "role";

/** How bad a status is: an alert follows a rise. */
const SEVERITY: Record<RecoveryStatus, number> = { healthy: 0, degraded: 1, lost: 2 };

type DueSetting = RecoverySettingRow & {
  installation: InstallationRow;
  project_name: string;
  /** Set when a place was added or moved since the last verdict: due at the next run. */
  probe_requested_at: Date | null;
  /** The places (and roles) that failed at the last verdict; null before one recorded them. */
  failing_places: string[] | null;
};

/** healthy: every place and role works; degraded: some do not; lost: the account failed or none works. */
export function probeVerdict(result: ProbeResult): RecoveryStatus {
  if (!result.account.ok) return "lost";
  const failing = result.places.filter((p) => !p.ok).length;
  if (failing === 0) return "healthy";
  return failing === result.places.length ? "lost" : "degraded";
}

/** Which settings a run looks at: every team's by default. */
export interface ProbeScope {
  /** Only this team's settings (a test on a shared database). */
  teamId?: string;
  /** At most this many settings per run. */
  limit?: number;
  /** Only this installation, due now whatever its interval (the platform said the bot's standing changed). */
  installationId?: string;
}

async function dueSettings(db: Db, now: Date, scope: ProbeScope): Promise<DueSetting[]> {
  const across = unscoped(db, "recovery probes: the due settings of every team");
  const query = across("recovery_settings as s")
    .join("connector_installations as i", "i.id", "s.installation_id")
    .join("projects as p", "p.id", "s.project_id")
    .where({ "s.probes_enabled": true, "i.status": "active" })
    .where((q) =>
      scope.installationId
        ? q.where("s.installation_id", scope.installationId)
        : q
            .whereNull("s.last_probe_at")
            .orWhereNotNull("s.probe_requested_at")
            .orWhereRaw("s.last_probe_at + s.probe_interval_minutes * interval '1 minute' <= ?", [now]),
    )
    .orderByRaw("s.probe_requested_at is null, s.last_probe_at asc nulls first")
    .limit(scope.limit ?? 100)
    .select("s.*", "p.name as project_name", across.raw("row_to_json(i.*) as installation"));
  if (scope.teamId) query.where("s.team_id", scope.teamId);
  return (await query) as DueSetting[];
}

/** What a setting's probe asks about: the gated places and roles, and the titles of the resources naming each. */
interface Gated {
  places: string[];
  roles: string[];
  titles: Map<string, string[]>;
}

/** The installation's gated places and roles: its project's active resources of the connector that name one. */
async function gatedPlaces(db: Db, setting: DueSetting): Promise<Gated> {
  const rows = (await unscoped(
    db,
    "recovery probes: the places of a due setting's project",
  )("resources")
    .where({ project_id: setting.project_id, connector_key: setting.connector_key, active: true })
    .whereNotNull("platform_ref")
    .whereIn("grant_mode", [...PLACE_MODES, ROLE_MODE])
    .orderBy("created_at")
    .select("platform_ref", "title", "grant_mode")) as { platform_ref: string; title: string; grant_mode: string }[];
  const gated: Gated = { places: [], roles: [], titles: new Map() };
  for (const row of rows) {
    const titles = gated.titles.get(row.platform_ref);
    if (titles) titles.push(row.title);
    else (row.grant_mode === ROLE_MODE ? gated.roles : gated.places).push(row.platform_ref);
    gated.titles.set(row.platform_ref, [...(titles ?? []), row.title]);
  }
  return gated;
}

/** The probe through the installation's driver; null when the platform gave no verdict (unreachable). */
async function probeInstallation(env: AccessSyncEnvironment, setting: DueSetting, gated: Gated, logger?: Logger): Promise<ProbeResult | null> {
  const { places, roles } = gated;
  try {
    return await installationSession(env, setting.installation).probe(places, { roles });
  } catch (err) {
    if (!(err instanceof PlatformError)) throw err;
    if (err.kind === "unreachable" || err.kind === "not_configured" || err.kind === "rate_limited") {
      logger?.warn(
        { installation_id: setting.installation_id, kind: err.kind, err: err.message },
        "recovery probe gave no verdict; tried again next run",
      );
      return null;
    }
    // The session could not even open (no token stored, no server): the installation does not work.
    const failing = [...places, ...roles].map((place) => ({ place, ok: false, reason: err.message }));
    return { account: { ok: false, reason: err.message }, places: failing };
  }
}

/** Writes the verdict; on a change, its entry, its event and (worse, or healthy again) the alert. Answers whether a row changed. */
async function recordVerdict(
  ctx: DomainContext,
  setting: DueSetting,
  status: RecoveryStatus,
  places: ProbedPlace[],
  account: ProbeResult["account"],
) {
  const previous = setting.status;
  const failingNow = places.filter((p) => !p.ok).map((p) => p.place);
  // A place failing that did not at the last verdict (one just added, or another lost while the status holds).
  const known = setting.failing_places;
  const newlyFailing = known === null ? [] : failingNow.filter((place) => !known.includes(place));
  const tellsNewPlaces = status !== "healthy" && newlyFailing.length > 0;
  // Only from the status this run read: a worker that probed in between has the newer word.
  const matching = recoverySettingsTable.rows(ctx).where({ id: setting.id, probes_enabled: true });
  if (previous === null) matching.whereNull("status");
  else matching.where({ status: previous });
  if ((await matching.update({ status, last_probe_at: ctx.now, failing_places: JSON.stringify(failingNow) })) === 0) return false;
  // The request this run answered; one made since (a place added meanwhile) stays for the next run.
  if (setting.probe_requested_at !== null)
    await recoverySettingsTable
      .rows(ctx)
      .where({ id: setting.id, probe_requested_at: setting.probe_requested_at })
      .update({ probe_requested_at: null });
  if (status === previous) {
    if (tellsNewPlaces) await alertProbe(ctx, setting, status, places, account);
    return true;
  }
  const { installation: _installation, project_name: _name, ...row } = setting;
  const shown = presentSetting({ ...row, status, last_probe_at: ctx.now }, (await pairsOf(ctx, [setting.id])).get(setting.id)!);
  const failing = places.filter((p) => !p.ok).map((p) => ({ place: p.place, titles: p.titles, reason: p.reason ?? null }));
  await recordActivity(ctx, {
    event: "recovery_setting_status_changed",
    description: `Recovery probe of ${setting.connector_key}: ${previous ?? "not probed"} to ${status}`,
    subjectType: "project",
    subjectId: setting.project_id,
    projectId: setting.project_id,
    properties: { recovery_setting: shown, previous_status: previous, failing_places: failing },
  });
  const data = { recovery_setting: shown, previous_status: previous, failing_places: failing };
  await emitEvent(ctx, { type: "recovery_setting.status_changed", projectId: setting.project_id, data });
  const worse = SEVERITY[status] > (previous === null ? 0 : SEVERITY[previous]);
  const recovered = status === "healthy" && previous !== null;
  if (worse || recovered || tellsNewPlaces) await alertProbe(ctx, setting, status, places, account);
  return true;
}

/** The recovery alert of one verdict (by mail and to the creators' connected accounts). */
async function alertProbe(ctx: DomainContext, setting: DueSetting, status: RecoveryStatus, places: ProbedPlace[], account: ProbeResult["account"]) {
  const alert = probeAlert({ setting, projectName: setting.project_name, installation: setting.installation, status, account, places });
  await raiseAlert(
    ctx,
    ctx.now,
    { team: setting.team_id },
    {
      class: "recovery",
      ...alert,
      teamId: setting.team_id,
      projectId: setting.project_id,
      // One alert per verdict that tells something: the installation, the status it reached and when.
      dedupeKey: `recovery:${setting.installation_id}:${status}:${ctx.now.toISOString()}`,
    },
  );
}

/**
 * Probes are on unless a creator turns them off: an active installation whose connector declares
 * probes and that has no setting gets the default one (probes on), written down as the system's
 * change the first time a run meets it. Answers how many it wrote.
 */
async function writeDefaultSettings(db: Db, connectors: ConnectorRegistry, now: Date, scope: ProbeScope): Promise<number> {
  const across = unscoped(db, "recovery probes: installations of every team without a setting");
  const query = across("connector_installations as i")
    .leftJoin("recovery_settings as s", "s.installation_id", "i.id")
    .whereNull("s.id")
    .where("i.status", "active")
    .whereNotNull("i.credentials")
    .orderBy("i.created_at")
    .limit(scope.limit ?? 100)
    .select("i.id", "i.team_id", "i.project_id", "i.connector_key");
  if (scope.teamId) query.where("i.team_id", scope.teamId);
  if (scope.installationId) query.where("i.id", scope.installationId);
  let written = 0;
  for (const installation of (await query) as Pick<InstallationRow, "id" | "team_id" | "project_id" | "connector_key">[]) {
    if (!declares(connectors.packages.get(installation.connector_key)?.manifest, "probes")) continue;
    try {
      await db.transaction((trx) => createDefaultSetting(createDomainContext(trx, systemActor(installation.team_id), now), installation));
      written++;
    } catch (err) {
      // A creator (or another worker) made its setting in between: theirs stands.
      if (!(err instanceof ApiError && err.code === "VALIDATION_FAILED")) throw err;
    }
  }
  return written;
}

/** One run: probes what is due at `now` (at most `limit`); answers how many settings it wrote. */
export async function runRecoveryProbes(
  db: Db,
  env: AccessSyncEnvironment & { connectors?: ConnectorRegistry },
  now: Date,
  scope: ProbeScope = {},
  logger?: Logger,
) {
  let changed = env.connectors ? await writeDefaultSettings(db, env.connectors, now, scope) : 0;
  for (const setting of await dueSettings(db, now, scope)) {
    const gated = await gatedPlaces(db, setting);
    // Platform calls run outside any transaction; the verdict is written in one short one.
    const result = await probeInstallation(env, setting, gated, logger);
    if (!result) continue;
    const probed: ProbedPlace[] = result.places.map((p) => ({ ...p, titles: gated.titles.get(p.place) ?? [] }));
    const status = probeVerdict(result);
    const wrote = await db.transaction((trx) =>
      recordVerdict(createDomainContext(trx, systemActor(setting.team_id), now), setting, status, probed, result.account),
    );
    if (wrote) changed++;
    // After the verdict's commit: a standby takes over a lost account, standby places lost places.
    changed += await useStandbys(db, env, { setting, result, now }, logger);
  }
  return changed;
}

/**
 * Telegram's my_chat_member update: the bot's standing in one of its chats changed (removed, made a
 * member, demoted). The installation is probed at once, so a bot thrown out of its chat raises the
 * recovery alert within seconds rather than at the next run. Answers whether the update was one.
 */
export async function probeOnStandingChange(
  db: Db,
  env: AccessSyncEnvironment & { connectors?: ConnectorRegistry },
  installation: Pick<InstallationRow, "id" | "team_id">,
  update: unknown,
  now: Date,
  logger?: Logger,
): Promise<boolean> {
  const change = (update as { my_chat_member?: { chat?: { type?: unknown } } } | null)?.my_chat_member;
  if (!change) return false;
  // A private chat's my_chat_member is a person blocking or unblocking the bot: no place of the community.
  if (change.chat?.type === "private") return true;
  await runRecoveryProbes(db, env, now, { teamId: installation.team_id, installationId: installation.id }, logger);
  return true;
}
