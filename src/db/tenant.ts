// Tenancy by construction. Domain code receives a DomainContext that does not expose the database:
// tenant-owned rows are reached only through a TenantTable, which adds the actor's team and its
// project allow-list to every read and sets the team on every insert. Anything else - a table no
// team owns (users), or a query that must look across teams (authentication) - goes through
// `unscoped(handle, reason)`, so every exception is named and found with `grep -rn "unscoped("`.
//
// Convention: every tenant-owned table carries team_id (denormalised where a parent row also has
// it), and a project-owned table its project column, so the filter never needs a join.
import type { Knex } from "knex";

export type ActorKind = "human" | "api_token" | "mcp" | "webhook" | "system" | "automation";
export type CredentialKind = "personal_access_token" | "oauth_access_token" | "session";

export interface Actor {
  /** The creator acting; null for the system (scheduled jobs, operator commands). */
  userId: string | null;
  /** A member acting on their own membership (the portal, the bot's /cancel); recorded as the causer when no creator acts. */
  memberId?: string | null;
  /** The one team the credential acts on (tenancy already checked). */
  teamId: string;
  /** Project allow-list; null = every project of the team. */
  projectIds: readonly string[] | null;
  kind: ActorKind;
  credentialKind: CredentialKind | null;
  requestId: string | null;
}

/** An operator or job acting on a team without a credential. */
export function systemActor(teamId: string): Actor {
  return { userId: null, teamId, projectIds: null, kind: "system", credentialKind: null, requestId: null };
}

export function inAllowList(actor: Actor, projectId: string): boolean {
  return actor.projectIds === null || actor.projectIds.includes(projectId);
}

export type Db = Knex | Knex.Transaction;

/** Not exported: outside this file the handle is reachable only through tenantTable or unscoped. */
const HANDLE = Symbol("database handle");

/**
 * What must happen once the change commits, outside the database: credentials whose cached
 * resolution is no longer true (the pipeline caches resolved credentials in the KV store).
 */
export type CommitEffect =
  /** These tokens no longer exist: refuse them at once. */
  | { kind: "credentials-revoked"; tokenIds: readonly string[] }
  /** These tokens still exist but what they resolve to changed (team visibility): resolve them again. */
  | { kind: "credentials-changed"; tokenIds: readonly string[] }
  /** These platform tasks (connector_platform_tasks) may run now: the change that asked for them committed. */
  | { kind: "platform-tasks"; taskIds: readonly string[] }
  /** These members' access is due now on the platforms (sync_member_access): sync it for them. */
  | { kind: "access-sync"; memberIds: readonly string[] };

const EFFECTS = Symbol("commit effects");

/** What every domain function receives: who acts, when, and (hidden) the transaction to act in. */
export interface DomainContext<A extends Actor = Actor> {
  readonly actor: A;
  readonly now: Date;
  readonly [HANDLE]: Db;
  readonly [EFFECTS]: CommitEffect[];
}

export function createDomainContext<A extends Actor>(db: Db, actor: A, now: Date): DomainContext<A> {
  return { actor, now, [HANDLE]: db, [EFFECTS]: [] };
}

/** Runs `work` in a transaction (nested: a savepoint) with the same actor, time and effects. */
export function inTransaction<T>(ctx: DomainContext, work: (ctx: DomainContext) => Promise<T>): Promise<T> {
  return ctx[HANDLE].transaction((trx) => work({ ...ctx, [HANDLE]: trx }));
}

/** Asks for `effect` once the change commits (whoever runs the transaction applies it). */
export function afterCommit(ctx: DomainContext, effect: CommitEffect): void {
  ctx[EFFECTS].push(effect);
}

export function commitEffectsOf(ctx: DomainContext): readonly CommitEffect[] {
  return ctx[EFFECTS];
}

/**
 * The database without tenant filters. `reason` says why this access may ignore the actor's team
 * (it is not used at run time; it is the reviewable record of each exception).
 */
export function unscoped(from: DomainContext | Db, _reason: string): Db {
  return typeof from === "function" ? from : from[HANDLE];
}

/** How a tenant-owned table is owned. */
export interface Ownership {
  /** Column holding the owning team's id. */
  team: string;
  /**
   * Column holding the project a row belongs to, when a project allow-list narrows the table. A
   * row whose project is null belongs to the team as a whole and is hidden from restricted actors.
   */
  project?: string;
}

export interface TenantTable {
  readonly name: string;
  readonly ownership: Ownership;
  /** Rows of the actor's team inside its project allow-list (select, update or delete from here). */
  rows(ctx: DomainContext): Knex.QueryBuilder;
  /**
   * Rows of the actor's team, ignoring its project allow-list: only to tell a row outside the
   * allow-list (404 TENANT_MISMATCH) from one that does not exist (404 RESOURCE_NOT_FOUND).
   */
  teamRows(ctx: DomainContext): Knex.QueryBuilder;
  /** Inserts rows owned by the actor's team: the team column is always the actor's. */
  insert(ctx: DomainContext, rows: Record<string, unknown> | Record<string, unknown>[]): Knex.QueryBuilder;
  /** The row as `insert` would write it (owned by the actor's team), for a writer that batches rows. */
  own(ctx: DomainContext, row: Record<string, unknown>): Record<string, unknown>;
}

const registry = new Map<string, TenantTable>();

/** Every tenant table declared so far (the tenancy tests check no query bypasses them). */
export function tenantTables(): ReadonlyMap<string, TenantTable> {
  return registry;
}

/** Declares a tenant-owned table; the area that owns it declares it once, beside its queries. */
export function tenantTable(name: string, ownership: Ownership): TenantTable {
  if (registry.has(name)) throw new Error(`tenant table ${name} is declared twice`);
  const column = (c: string) => `${name}.${c}`;
  const table: TenantTable = {
    name,
    ownership,
    rows(ctx) {
      const query = table.teamRows(ctx);
      if (ownership.project && ctx.actor.projectIds !== null) query.whereIn(column(ownership.project), [...ctx.actor.projectIds]);
      return query;
    },
    teamRows(ctx) {
      return ctx[HANDLE](name).where(column(ownership.team), ctx.actor.teamId);
    },
    own(ctx, row) {
      const project = ownership.project ? row[ownership.project] : undefined;
      if (typeof project === "string" && !inAllowList(ctx.actor, project)) {
        throw new Error(`${name}: insert for project ${project} outside the actor's allow-list`);
      }
      // A row made with the actor's team already in place (activity rows) is kept as it is.
      if (row[ownership.team] === ctx.actor.teamId) return row;
      const owned = { ...row };
      owned[ownership.team] = ctx.actor.teamId;
      return owned;
    },
    insert(ctx, rows) {
      return ctx[HANDLE](name).insert((Array.isArray(rows) ? rows : [rows]).map((row) => table.own(ctx, row)));
    },
  };
  registry.set(name, table);
  return table;
}
