// Project handles: the address of a project's subscriber portal. Unique across the service; a
// handle a project gave up stays reserved forever (only that same project may take it back), so
// an old portal link never leads to someone else's community. The portal answers for a project's
// current handle only.
import { randomInt } from "node:crypto";
import { validationFailed } from "../../errors.ts";
import { unscoped, type DomainContext, type Db } from "../../db/tenant.ts";
import { projectHandlesTable, projectsTable, type ProjectRow } from "./tables.ts";

export const HANDLE_MIN = 5;
export const HANDLE_MAX = 64;
/** Lower-case letters, digits and hyphens; starts and ends with a letter or digit. */
export const HANDLE_PATTERN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/** Words the service's own pages use: never a project's handle. */
export const RESERVED_HANDLES: ReadonlySet<string> = new Set([
  "about",
  "account",
  "admin",
  "assets",
  "billing",
  "connectors",
  "dashboard",
  "help",
  "login",
  "logout",
  "oauth",
  "portal",
  "pricing",
  "projects",
  "settings",
  "signup",
  "static",
  "status",
  "support",
  "terms",
  "privacy",
  "well-known",
]);

const SUFFIX_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
const randomSuffix = (length: number) => Array.from({ length }, () => SUFFIX_ALPHABET[randomInt(SUFFIX_ALPHABET.length)]).join("");

/** A handle made from the name: its letters and digits, hyphen-joined, plus a random suffix. */
export function handleFromName(name: string): string {
  const base =
    name
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40)
      .replace(/-+$/, "") || "project";
  return `${base}-${randomSuffix(6)}`;
}

/** Why a handle cannot be used by anyone (format, reserved word), or null. */
export function handleProblem(handle: string): string | null {
  if (handle.length < HANDLE_MIN || handle.length > HANDLE_MAX) return `must be ${HANDLE_MIN} to ${HANDLE_MAX} characters`;
  if (!HANDLE_PATTERN.test(handle)) return "may hold lower-case letters, digits and hyphens, and must start and end with a letter or digit";
  if (RESERVED_HANDLES.has(handle)) return "is reserved by the service";
  return null;
}

const handles = (ctx: DomainContext) =>
  unscoped(ctx, "handles are unique across the service: a handle another team holds is taken")("project_handles");

/**
 * Claims `handle` for the project: true when it was free (the row is written now), false when
 * anyone (any team, any project, current or superseded) ever held it. The primary key decides
 * between two concurrent claims.
 */
async function claim(ctx: DomainContext, projectId: string, handle: string): Promise<boolean> {
  const row = projectHandlesTable.own(ctx, { handle, project_id: projectId, created_at: ctx.now, retired_at: null });
  const inserted = await handles(ctx).insert(row).onConflict("handle").ignore().returning("handle");
  return inserted.length === 1;
}

/** 422 naming `handle` (nothing was written). */
function handleRefused(message: string): never {
  throw validationFailed({ handle: [message] });
}

/** The handle of a new project: the one asked for (refused when taken), or one made from the name. */
export async function claimNewHandle(ctx: DomainContext, projectId: string, name: string, wanted: string | undefined): Promise<string> {
  if (wanted !== undefined) {
    const problem = handleProblem(wanted);
    if (problem) handleRefused(problem);
    if (!(await claim(ctx, projectId, wanted))) handleRefused("is already taken (handles are unique and a superseded handle stays reserved)");
    return wanted;
  }
  for (let attempt = 0; attempt < 8; attempt++) {
    const generated = handleFromName(name);
    if (!handleProblem(generated) && (await claim(ctx, projectId, generated))) return generated;
  }
  throw new Error("could not generate a free handle in 8 attempts");
}

/**
 * Moves the project to `wanted`: a free handle is claimed, or one this project held before is
 * taken back; the current one is retired (reserved for this project forever). 422 when another
 * project ever held `wanted`.
 */
export async function changeHandle(ctx: DomainContext, project: Pick<ProjectRow, "id" | "handle">, wanted: string): Promise<void> {
  const problem = handleProblem(wanted);
  if (problem) handleRefused(problem);
  const own = await projectHandlesTable.teamRows(ctx).where({ handle: wanted, project_id: project.id }).first("handle");
  if (own) await projectHandlesTable.teamRows(ctx).where({ handle: wanted }).update({ retired_at: null });
  else if (!(await claim(ctx, project.id, wanted))) handleRefused("is already taken (handles are unique and a superseded handle stays reserved)");
  await projectHandlesTable.teamRows(ctx).where({ handle: project.handle, project_id: project.id }).update({ retired_at: ctx.now });
}

/** The project whose portal a handle opens, for the public portal. */
export type PortalProject = Pick<ProjectRow, "id" | "team_id" | "name" | "handle" | "description" | "terms_url" | "privacy_url"> & {
  status: "active" | "archived";
};

/**
 * The project whose CURRENT handle is `handle`; null for a superseded handle (the portal answers
 * 404 for it), an unknown one, or one of a deleted project.
 */
export async function projectByPortalHandle(db: Db, handle: string): Promise<PortalProject | null> {
  const projects = unscoped(db, "the portal is public: a handle names its project before any team is known")(projectsTable.name);
  const columns = ["id", "team_id", "name", "handle", "description", "terms_url", "privacy_url", "active"] as const;
  const row = (await projects.where({ handle }).first(...columns)) as Pick<ProjectRow, (typeof columns)[number]> | undefined;
  if (!row) return null;
  const { active, ...rest } = row;
  return { ...rest, status: active ? "active" : "archived" };
}
