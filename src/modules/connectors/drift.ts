// Drift repair: the platform brought back in line with the access ledger when someone changed it by
// hand or a call was lost. For each installation whose platform can list its members with their
// roles (Discord), every gated role (a role resource of the installation's connector) is compared
// with the ledger: a role held without a covering grant is taken (a member the ledger does not know
// who holds a gated role too: someone gave it by hand), and a granted grant whose role is missing is
// given again. Roles no resource gates are never touched. Grants in flux (pending, or revoked and
// not yet taken on the platform) are the access sweep's (access-sync.ts): drift leaves them alone.
// A sweep that would take one role from too many of its holders at once (an outage, a bug, a
// restored backup) takes it from none: it records a hold and alerts the creator, who confirms
// (the next sweep takes the role from exactly the held members still uncovered) or cancels
// (nothing is taken; the same members are not held again). What a sweep repaired is recorded as an
// activity entry on the project.
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { createDomainContext, systemActor, unscoped, type Db } from "../../db/tenant.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { alertRemovalHold } from "../alerts/producers.ts";
import { installationSession } from "./bot/session.ts";
import { PlatformError, type PlatformSession } from "./drivers/driver.ts";
import type { AccessSyncEnvironment } from "./access-sync.ts";
import { platformName } from "./platform-name.ts";
import { removalHoldsTable, type InstallationRow, type RemovalHoldRow } from "./tables.ts";

/** A sweep holds when it would take a role from more than this share of the role's holders... */
export const HOLD_SHARE = 0.2;
/** ...and from at least this many: on a small server a few removals are ordinary churn, not an outage. */
export const HOLD_FLOOR = 5;
/** ...or from more than this many, whatever the share (DriftOptions.holdLimit overrides it). */
export const HOLD_LIMIT = 100;

export interface DriftOptions {
  /** The absolute count of removals of one role above which a sweep holds. */
  holdLimit?: number;
  /** Only this installation (tests); every active one when absent. */
  installationId?: string;
}

interface GatedRole {
  resource_id: string;
  place: string;
  title: string;
}

/** What one installation's sweep did. */
interface Repairs {
  removed: { user: string; role: string }[];
  added: { user: string; role: string }[];
  held: { hold_id: string; role: string; count: number }[];
}

/** Whether taking a role from `count` of its `holders` at once is a mass removal. */
export function isMassRemoval(count: number, holders: number, limit = HOLD_LIMIT): boolean {
  return (count >= HOLD_FLOOR && count > HOLD_SHARE * holders) || count > limit;
}

/** One sweep over every active installation; answers how many roles it took or gave. */
export async function repairDrift(db: Db, env: AccessSyncEnvironment, now: Date, options: DriftOptions = {}, logger?: Logger): Promise<number> {
  const query = unscoped(db, "the drift sweep: every team's installations")("connector_installations").where({ status: "active" });
  if (options.installationId) query.where({ id: options.installationId });
  const installations = (await query.select("*")) as InstallationRow[];
  let changed = 0;
  for (const installation of installations) {
    let session: PlatformSession;
    try {
      session = installationSession(env, installation);
    } catch (err) {
      if (!(err instanceof PlatformError)) throw err;
      continue;
    }
    if (!session.listMembers) continue;
    const repairs = await repairInstallation(db, session, installation, now, options, logger);
    changed += repairs.removed.length + repairs.added.length;
  }
  return changed;
}

async function repairInstallation(
  db: Db,
  session: PlatformSession,
  installation: InstallationRow,
  now: Date,
  options: DriftOptions,
  logger?: Logger,
): Promise<Repairs> {
  const repairs: Repairs = { removed: [], added: [], held: [] };
  const across = unscoped(db, "the drift sweep: the installation's gated roles and grants, on its team");
  const roles = (await across("resources")
    .where({ team_id: installation.team_id, project_id: installation.project_id, connector_key: installation.connector_key, grant_mode: "role" })
    .whereNotNull("platform_ref")
    .select("id as resource_id", "platform_ref as place", "title")) as GatedRole[];
  if (!roles.length) return repairs;
  const grants = (await across("access_grants as g")
    .join("members as m", "m.id", "g.member_id")
    .where({ "g.team_id": installation.team_id, "g.project_id": installation.project_id, "m.connector_key": installation.connector_key })
    .whereIn(
      "g.resource_id",
      roles.map((r) => r.resource_id),
    )
    .whereNotNull("m.external_user_id")
    .select("g.resource_id", "g.status", "g.granted_at", "g.platform_synced_at", "m.external_user_id as user")) as {
    resource_id: string;
    status: string;
    granted_at: Date | null;
    platform_synced_at: Date | null;
    user: string;
  }[];
  const placeOf = new Map(roles.map((r) => [r.resource_id, r.place]));
  /** user:role pairs the ledger gives, or is about to give or take (left to the access sweep). */
  const covered = new Set<string>();
  /** user:role pairs the ledger has given: the role must be held. */
  const owed = new Set<string>();
  for (const g of grants) {
    const key = `${g.user}:${placeOf.get(g.resource_id)}`;
    if (g.status === "granted" || g.status === "pending" || (g.status === "revoked" && g.platform_synced_at === null)) covered.add(key);
    if (g.status === "granted" && g.granted_at !== null) owed.add(key);
  }
  let members: { user: string; roles: string[] }[];
  try {
    members = await session.listMembers!();
  } catch (err) {
    if (!(err instanceof PlatformError)) throw err;
    logger?.warn({ installation_id: installation.id, kind: err.kind, err: err.message }, "drift repair: the server's members could not be listed");
    return repairs;
  }
  const holding = new Map<string, Set<string>>(members.map((m) => [m.user, new Set(m.roles)]));

  // Granted roles missing: given again (never held: giving back what was paid for harms no one).
  for (const key of owed) {
    const [user, role] = key.split(":") as [string, string];
    const held = holding.get(user);
    // A member who left the server is not pulled back in: they may rejoin through the portal.
    if (!held || held.has(role)) continue;
    if (await attempt(() => session.addRole(user, role), installation, logger)) repairs.added.push({ user, role });
  }

  // Gated roles held without a covering grant: taken, unless that is a mass removal.
  const holds = (await across("connector_removal_holds")
    .where({ installation_id: installation.id })
    .orderBy("created_at", "desc")
    .select("*")) as RemovalHoldRow[];
  for (const role of roles) {
    const holders = members.filter((m) => m.roles.includes(role.place));
    let planned = holders.filter((m) => !covered.has(`${m.user}:${role.place}`)).map((m) => m.user);
    if (!planned.length) continue;
    const ofRole = holds.filter((h) => h.resource_id === role.resource_id && h.place === role.place);
    const confirmed = ofRole.find((h) => h.status === "confirmed" && h.applied_at === null);
    let apply: string[] = [];
    if (confirmed) {
      // The creator confirmed: exactly the held members still uncovered go; anyone new is judged afresh.
      apply = planned.filter((u) => confirmed.member_ids.includes(u));
      planned = planned.filter((u) => !confirmed.member_ids.includes(u));
      await db.transaction((trx) =>
        removalHoldsTable
          .rows(createDomainContext(trx, systemActor(installation.team_id), now))
          .where({ id: confirmed.id })
          .update({ applied_at: now }),
      );
    }
    const open = ofRole.find((h) => h.status === "held");
    const cancelled = ofRole.find((h) => h.status === "cancelled");
    if (open || (cancelled && planned.every((u) => cancelled.member_ids.includes(u)))) {
      // Already waiting for the creator, or the creator kept these very members: no removal, no new alert.
    } else if (isMassRemoval(planned.length, holders.length, options.holdLimit)) {
      repairs.held.push({ hold_id: await hold(db, installation, role, holders.length, planned, now), role: role.place, count: planned.length });
    } else apply.push(...planned);
    for (const user of apply)
      if (await attempt(() => session.removeRole(user, role.place), installation, logger)) repairs.removed.push({ user, role: role.place });
  }
  if (repairs.removed.length || repairs.added.length) {
    await db.transaction((trx) =>
      recordActivity(createDomainContext(trx, systemActor(installation.team_id), now), {
        event: "access_drift_repaired",
        description: `The drift sweep brought ${platformName(installation.connector_key)} in line with the access ledger`,
        subjectType: "project",
        subjectId: installation.project_id,
        projectId: installation.project_id,
        properties: { installation_id: installation.id, removed: repairs.removed, added: repairs.added },
      }),
    );
    logger?.info(
      { installation_id: installation.id, removed: repairs.removed.length, added: repairs.added.length },
      "drift repair brought the platform in line",
    );
  }
  return repairs;
}

/** One repairing call; a refusal is logged and left to the next sweep. */
async function attempt(call: () => Promise<void>, installation: InstallationRow, logger?: Logger): Promise<boolean> {
  try {
    await call();
    return true;
  } catch (err) {
    if (!(err instanceof PlatformError)) throw err;
    logger?.warn({ installation_id: installation.id, kind: err.kind, err: err.message }, "drift repair: a call was refused; tried at the next sweep");
    return false;
  }
}

/** Records a hold, its activity entry and the creator's alert in one transaction; answers its id. */
async function hold(db: Db, installation: InstallationRow, role: GatedRole, holders: number, planned: string[], now: Date): Promise<string> {
  const id = randomUUID();
  await db.transaction(async (trx) => {
    const ctx = createDomainContext(trx, systemActor(installation.team_id), now);
    await removalHoldsTable.insert(ctx, {
      id,
      project_id: installation.project_id,
      installation_id: installation.id,
      resource_id: role.resource_id,
      place: role.place,
      holders,
      planned_count: planned.length,
      member_ids: JSON.stringify(planned),
      status: "held",
      created_at: now,
    });
    await recordActivity(ctx, {
      event: "access_removal_held",
      description: `The drift sweep held the removal of ${role.title} from ${planned.length} of its ${holders} holders`,
      subjectType: "project",
      subjectId: installation.project_id,
      projectId: installation.project_id,
      properties: { hold_id: id, installation_id: installation.id, resource_id: role.resource_id, planned_count: planned.length, holders },
    });
    await alertRemovalHold(ctx, {
      holdId: id,
      projectId: installation.project_id,
      connectorKey: installation.connector_key,
      platform: platformName(installation.connector_key),
      title: role.title,
      count: planned.length,
      holders,
    });
  });
  return id;
}
