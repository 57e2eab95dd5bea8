// The activity log: every mutation writes its entry inside the mutation's transaction, so a
// change without its entry cannot exist. Secret-like properties never reach the table or a reader.
import { randomUUID } from "node:crypto";
import type { components } from "../../../generated/openapi.d.ts";
import { ApiError, notFound } from "../../errors.ts";
import { tenantTable, unscoped, type DomainContext } from "../../db/tenant.ts";
import { isSecretKey } from "../../security/secret-keys.ts";

/**
 * How much of a value an entry keeps. Properties are written by domain code but also carry what a
 * client sent (an MCP tool call's arguments), so every entry must be storable whatever arrived:
 * bounded depth and size, and text PostgreSQL accepts (no NUL, no unpaired surrogate).
 */
export const STORED_LIMITS = { depth: 8, stringLength: 2000, items: 200, keys: 100 } as const;

function storedText(text: string): string {
  const cut =
    text.length > STORED_LIMITS.stringLength
      ? `${text.slice(0, STORED_LIMITS.stringLength)}…[${text.length - STORED_LIMITS.stringLength} more characters]`
      : text;
  return cut.replace(/\u0000/g, "\uFFFD").toWellFormed();
}

/**
 * The value as an activity entry stores and shows it: secret-like keys removed at any depth
 * (before the response leaves the server, and before the row is written), then bounded as
 * STORED_LIMITS says. Recursion stops at the depth limit, so any input is safe.
 */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return storedText(value);
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "boolean" || value === null) return value;
  if (value instanceof Date) return value.toISOString();
  if (typeof value !== "object") return null;
  if (depth >= STORED_LIMITS.depth) return "[nested too deep to record]";
  if (Array.isArray(value)) {
    const items = value.slice(0, STORED_LIMITS.items).map((v) => redactSecrets(v, depth + 1));
    if (value.length > STORED_LIMITS.items) items.push(`[${value.length - STORED_LIMITS.items} more items]`);
    return items;
  }
  const entries = Object.entries(value).filter(([key, v]) => v !== undefined && !isSecretKey(key));
  const kept = entries.slice(0, STORED_LIMITS.keys).map(([key, v]) => [storedText(key), redactSecrets(v, depth + 1)] as const);
  if (entries.length > STORED_LIMITS.keys) kept.push(["…", `[${entries.length - STORED_LIMITS.keys} more keys]`]);
  // fromEntries defines own properties: a key named __proto__ stays a key.
  return Object.fromEntries(kept);
}

export interface ActivityInput {
  event: string;
  description: string;
  subjectType: string;
  subjectId: string;
  projectId?: string | null;
  properties?: Record<string, unknown>;
}

/** Entries belong to the team they were recorded on, and to a project when they name one. */
export const activityLog = tenantTable("activity_log", { team: "team_id", project: "project_id" });

/** An activity_log row as activityRow makes it (its team set by activityLog.own). */
const ACTIVITY_RECORD =
  "id uuid, team_id uuid, project_id uuid, event text, description text, subject_type text, subject_id text, causer_type text, " +
  "causer_id text, actor_kind text, credential_kind text, properties jsonb, request_id text, created_at timestamptz";
const ACTIVITY_COLUMNS = ACTIVITY_RECORD.split(", ")
  .map((c) => c.split(" ")[0])
  .join(", ");

/**
 * Inserts rows given as one JSON array: a single bound value however many rows, so a batch costs
 * one JSON.stringify rather than a statement compiled and fourteen values bound per row. Rows are
 * inserted in the array's order (WITH ORDINALITY), so `seq`, which orders entries of the same
 * instant newest first, follows the order they were recorded in.
 */
const INSERT_ACTIVITY_ROWS =
  `insert into activity_log (${ACTIVITY_COLUMNS}) select ${ACTIVITY_COLUMNS} ` +
  `from rows from (jsonb_to_recordset(?::jsonb) as (${ACTIVITY_RECORD})) with ordinality as r(${ACTIVITY_COLUMNS}, recorded) order by recorded`;

/** The statement and its binding that insert `rows` (made by activityRow, owned by activityLog.own). */
export function activityInsert(rows: readonly Record<string, unknown>[]): { sql: string; bindings: [string] } {
  return { sql: INSERT_ACTIVITY_ROWS, bindings: [JSON.stringify(rows)] };
}

/** Writes the entry in the change's transaction, so the change and its entry commit together. */
export async function recordActivity(ctx: DomainContext, entry: ActivityInput): Promise<void> {
  const { sql, bindings } = activityInsert([activityLog.own(ctx, activityRow(ctx, entry))]);
  const handle = unscoped(ctx, "the activity rows are owned by the actor's team (activityLog.own)");
  await handle.raw(sql, bindings);
}

/**
 * Text PostgreSQL stores: rows travel as one JSON value (activityInsert), where a NUL or an
 * unpaired surrogate would fail the whole statement rather than be replaced.
 */
const asText = (text: string) => (text.includes("\u0000") || !text.isWellFormed() ? text.replace(/\u0000/g, "\uFFFD").toWellFormed() : text);

/** The row an entry is stored as (owned by the actor's team: activityLog.own keeps it as it is). */
export function activityRow(ctx: DomainContext, entry: ActivityInput): Record<string, unknown> {
  const { actor } = ctx;
  // Every value a string, a number or null but the properties (the rows travel as JSON: an ISO
  // time rather than a Date's toJSON), the team in place as activityLog.own would set it.
  return {
    id: randomUUID(),
    team_id: actor.teamId,
    project_id: entry.projectId ?? null,
    event: entry.event,
    description: asText(entry.description),
    subject_type: entry.subjectType,
    subject_id: asText(entry.subjectId),
    // A creator when one acts, else the member acting on their own membership (causer_type "member").
    causer_type: actor.userId ? "user" : actor.memberId ? "member" : null,
    causer_id: actor.userId ?? actor.memberId ?? null,
    actor_kind: actor.kind,
    credential_kind: actor.credentialKind,
    properties: redactSecrets(entry.properties ?? {}),
    request_id: actor.requestId,
    created_at: ctx.now.toISOString(),
  };
}

/**
 * Query aliases of subject types and the canonical alias entries are stored under. A class name
 * (or anything else) is refused by the request schema.
 */
export const SUBJECT_ALIASES: Record<string, string> = {
  project: "project",
  subscription: "subscription",
  "project-subscription": "subscription",
  member: "member",
  "project-user": "member",
  plan: "plan",
  "project-subscription-plan": "plan",
  "access-code": "access-code",
  coupon: "coupon",
  "project-resource": "project-resource",
  team: "team",
  "support-conversation": "support-conversation",
  "support-canned-reply": "support-canned-reply",
  broadcast: "broadcast",
};

type ActivityEntry = components["schemas"]["ActivityEntry"];

/** A row of activity_log as the database returns it (jsonb parsed, timestamptz as Date). */
type ActivityRow = Omit<ActivityEntry, "created_at"> & { created_at: Date };

function presentEntry(row: ActivityRow): ActivityEntry {
  return {
    id: row.id,
    event: row.event,
    description: row.description,
    subject_type: row.subject_type,
    subject_id: row.subject_id,
    project_id: row.project_id,
    causer_type: row.causer_type,
    causer_id: row.causer_id,
    actor_kind: row.actor_kind,
    credential_kind: row.credential_kind,
    properties: redactSecrets(row.properties ?? {}) as Record<string, unknown>,
    request_id: row.request_id,
    created_at: new Date(row.created_at).toISOString(),
  };
}

/**
 * The entries of one subject, newest first. A subject is visible when the caller's team has
 * recorded it (every subject's creation is itself an entry) and its project is in the allow-list.
 */
export async function listActivity(ctx: DomainContext, query: { subjectType: string; subjectId: string; limit: number }) {
  const subjectType = Object.hasOwn(SUBJECT_ALIASES, query.subjectType) ? SUBJECT_ALIASES[query.subjectType] : undefined;
  if (!subjectType)
    throw new ApiError("VALIDATION_FAILED", "Unknown subject type.", { fields: { subject_type: ["is not a known subject type alias"] } });
  const subject = () => activityLog.rows(ctx).where({ subject_type: subjectType, subject_id: query.subjectId });
  // The team's entries inside the allow-list: a team-level subject (no project) is outside every
  // allow-list, and a subject the team never recorded is not visible at all.
  if (!(await subject().first("id"))) throw notFound(query.subjectType);
  const rows: ActivityRow[] = await subject()
    .select("*")
    .orderBy([
      { column: "created_at", order: "desc" },
      { column: "seq", order: "desc" },
    ])
    .limit(query.limit);
  return {
    data: rows.map(presentEntry),
    meta: { subject_type: subjectType, subject_id: query.subjectId, limit: query.limit, count: rows.length },
  };
}
