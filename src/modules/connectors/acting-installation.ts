// The installation that acts for a project's connector: its own, or once recovery let a standby
// installation take over (taken_over_by), the standby's bot on the project's row. Everything that
// reaches members through "the project's installation" (the access sweep, bans, the bot message
// worker, deep links and the portal's buttons) goes through here, so a takeover changes them all.
import type { Knex } from "knex";
import { unscoped, type Db, type DomainContext } from "../../db/tenant.ts";
import type { InstallationRow } from "./tables.ts";

/** The standby's columns that make it the one that sends: the bot's identity, credentials and standing. */
const BOT_COLUMNS = ["id", "credentials", "platform_account_id", "platform_account_name", "bot_url", "status"] as const;

type Bot = Pick<InstallationRow, (typeof BOT_COLUMNS)[number]>;

/**
 * The project's row as members meet it: the standby's bot (its id, which the credentials are sealed
 * to, and where its messages are paced) with the project's own project, connector and settings.
 */
export function actingAs<T extends Partial<InstallationRow>>(own: T, standby: Bot | null | undefined): T {
  if (!standby) return own;
  const bot = Object.fromEntries(BOT_COLUMNS.map((column) => [column, standby[column]]));
  return { ...own, ...bot, taken_over_by: null };
}

/** A select column `standby`: the row that took over from the installation aliased `alias` (null when none did). */
export function standbyColumn(db: Knex, alias: string): Knex.Raw {
  return db.raw(`(select row_to_json(s.*) from connector_installations s where s.id = ??.taken_over_by and s.status = 'active') as standby`, [alias]);
}

/** Items read with `standbyColumn`, each with its installation as it acts. */
export function actingItems<T extends { installation: InstallationRow; standby?: Bot | null }>(items: T[]): T[] {
  return items.map(({ standby, ...item }) => ({ ...item, installation: actingAs(item.installation, standby) }) as T);
}

/** The installations of these rows as they act: the standby's bot where one took over. */
export async function actingInstallations<T extends Partial<InstallationRow>>(db: DomainContext | Db, rows: T[]): Promise<T[]> {
  const ids = [...new Set(rows.flatMap((r) => (r.taken_over_by ? [r.taken_over_by] : [])))];
  if (ids.length === 0) return rows;
  const standbys = (await unscoped(
    db,
    "a standby installation of the same team sends for the installation it took over",
  )("connector_installations")
    .whereIn("id", ids)
    .where({ status: "active" })
    .select(...BOT_COLUMNS)) as Bot[];
  const byId = new Map(standbys.map((s) => [s.id, s]));
  return rows.map((row) => actingAs(row, row.taken_over_by ? byId.get(row.taken_over_by) : null));
}

/** One installation as it acts. */
export async function actingInstallation<T extends Partial<InstallationRow>>(db: DomainContext | Db, row: T): Promise<T>;
export async function actingInstallation<T extends Partial<InstallationRow>>(db: DomainContext | Db, row: T | undefined): Promise<T | undefined>;
export async function actingInstallation<T extends Partial<InstallationRow>>(db: DomainContext | Db, row: T | undefined): Promise<T | undefined> {
  return row ? (await actingInstallations(db, [row]))[0] : undefined;
}

/**
 * The installation whose members a bot's updates are from: while a standby stands in for exactly
 * one installation, the members writing to its bot are that project's (the bot URL it gave them),
 * so its updates are read as that installation acting through the standby; otherwise its own.
 */
export async function answeringFor(db: Db, own: InstallationRow): Promise<InstallationRow> {
  const taken = (await unscoped(
    db,
    "a standby's updates belong to the installation it took over, in its team",
  )("connector_installations")
    .where({ taken_over_by: own.id, team_id: own.team_id })
    .limit(2)
    .select("*")) as InstallationRow[];
  return taken.length === 1 ? actingAs(taken[0]!, own) : own;
}
