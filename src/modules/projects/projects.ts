// Projects: what a team sells through. Creation (REST, MCP, the operator CLI and the demo),
// reading, changing (handle, links, archive and restore), deleting, and the visibility checks
// every project-scoped operation relies on. Decisions: spec/openapi/areas/projects.yaml.
import { randomUUID } from "node:crypto";
import { createPaymentMethod } from "../payment-methods/payment-methods.ts";
import { ApiError, notFound, validationFailed } from "../../errors.ts";
import { type DomainContext, type TenantTable } from "../../db/tenant.ts";
import { alertFirstProject } from "../alerts/producers.ts";
import { sortedPage, type PageWindow } from "../../db/pages.ts";
import { requireGrowth } from "../teams/tier.ts";
import { installationsTable } from "../connectors/tables.ts";
import { membersTable } from "../members/tables.ts";
import { plansTable } from "../plans/tables.ts";
import { resourcesTable } from "../resources/tables.ts";
import { changeHandle, claimNewHandle } from "./handles.ts";
import { requireProjectPlace } from "./limits.ts";
import { recordProjectChange, type ProjectField } from "./project-change.ts";
import { projectHandlesTable, projectsTable, type ProjectRow } from "./tables.ts";

export { projectsTable } from "./tables.ts";

export type ProjectStatus = "active" | "archived";

export function presentProject(row: ProjectRow) {
  return {
    id: row.id,
    team_id: row.team_id,
    name: row.name,
    handle: row.handle,
    description: row.description,
    terms_url: row.terms_url,
    privacy_url: row.privacy_url,
    status: (row.active ? "active" : "archived") as ProjectStatus,
    archived_at: row.archived_at ? new Date(row.archived_at).toISOString() : null,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export type Project = ReturnType<typeof presentProject>;

async function projectById(ctx: DomainContext, id: string): Promise<ProjectRow> {
  const row = (await projectsTable.rows(ctx).where("projects.id", id).first()) as ProjectRow | undefined;
  if (!row) throw notFound("project");
  return row;
}

const PROJECT_SORT: Record<string, string> = { created_at: "created_at", name: "lower(name)", handle: "handle" };

/** A page of the projects the actor sees (its team's, inside its project allow-list). */
export async function listProjects(ctx: DomainContext, window: PageWindow) {
  const { rows, total } = await sortedPage<ProjectRow>(projectsTable.rows(ctx).select("*"), window, PROJECT_SORT);
  return { rows: rows.map(presentProject), total };
}

/** Every project the actor sees, oldest first (the MCP resource that orients an agent). */
export async function allVisibleProjects(ctx: DomainContext): Promise<Project[]> {
  const rows = (await projectsTable
    .rows(ctx)
    .orderBy([{ column: "created_at", order: "asc" }, { column: "id" }])
    .select("*")) as ProjectRow[];
  return rows.map(presentProject);
}

type CountKey = "plans" | "resources" | "members" | "installations";
const COUNTED: Record<CountKey, TenantTable> = {
  plans: plansTable,
  resources: resourcesTable,
  members: membersTable,
  installations: installationsTable,
};

/** One project with how many plans, resources, members and connector installations it holds (one query). */
export async function getProject(ctx: DomainContext, id: string) {
  const subqueries = Object.entries(COUNTED).map(([key, table]) =>
    table.rows(ctx).whereRaw("??.?? = ??", [table.name, "project_id", "projects.id"]).count("*").as(`count_${key}`),
  );
  const row = (await projectsTable
    .rows(ctx)
    .where("projects.id", id)
    .first("projects.*", ...subqueries)) as (ProjectRow & Record<string, string | number>) | undefined;
  if (!row) throw notFound("project");
  const counts = Object.fromEntries(Object.keys(COUNTED).map((key) => [key, Number(row[`count_${key}`])])) as Record<CountKey, number>;
  return { ...presentProject(row), counts: counts };
}

export interface ProjectInput {
  name: string;
  description?: string | null;
  handle?: string;
  terms_url?: string | null;
  privacy_url?: string | null;
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw validationFailed({ name: ["must contain a visible character"] });
  return trimmed;
}

/**
 * Creates a project of the actor's team. A token restricted to a project allow-list cannot (the
 * new project would lie outside it: 404 TENANT_MISMATCH); a custom handle needs Growth; the
 * tier's project limit applies (limits.ts).
 */
export async function createProject(ctx: DomainContext, input: ProjectInput): Promise<Project> {
  if (ctx.actor.projectIds !== null) {
    throw new ApiError("TENANT_MISMATCH", "A token restricted to a project allow-list cannot create projects: the new one would lie outside it.", {
      context: { reason: "project_allow_list" },
      remediation: "Use a token without a project allow-list to create projects.",
    });
  }
  const name = checkName(input.name);
  if (input.handle !== undefined) await requireGrowth(ctx, "A custom handle");
  await requireProjectPlace(ctx);
  const id = randomUUID();
  const handle = await claimNewHandle(ctx, id, name, input.handle);
  const row: ProjectRow = {
    id,
    team_id: ctx.actor.teamId,
    name,
    handle,
    description: input.description ?? null,
    terms_url: input.terms_url ?? null,
    privacy_url: input.privacy_url ?? null,
    active: true,
    archived_at: null,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  await projectsTable.insert(ctx, { ...row });
  const project = presentProject(row);
  await recordProjectChange(ctx, "created", project);
  // Every project can sell through access codes: the platform's own provider (no credentials),
  // disabled until the creator enables it with the currencies and cycles it sells in
  // (PATCH .../payment-methods/{id}); other providers come from the dashboard's provider setup.
  await createPaymentMethod(ctx, id, { provider: "access_codes", name: "Access codes", enabled: false, currencies: [], billing_cycles: [] });
  await alertFirstProject(ctx, project);
  return project;
}

export interface ProjectChanges extends Partial<ProjectInput> {
  status?: ProjectStatus;
}

const EDITABLE = ["name", "description", "terms_url", "privacy_url"] as const;

/**
 * Changes what was sent and differs from the project: its fields (project.updated names them and
 * their previous values), its handle (Growth; the old one stays reserved for this project), its
 * status (project.archived / project.restored). A change to nothing writes nothing.
 */
export async function updateProject(ctx: DomainContext, id: string, input: ProjectChanges): Promise<Project> {
  const row = await projectById(ctx, id);
  const next: ProjectRow = { ...row };
  const previous: Partial<Record<ProjectField, unknown>> = {};
  for (const field of EDITABLE) {
    const value = field === "name" && input.name !== undefined ? checkName(input.name) : input[field];
    if (value !== undefined && value !== row[field]) {
      previous[field] = row[field];
      (next as unknown as Record<string, unknown>)[field] = value;
    }
  }
  if (input.handle !== undefined && input.handle !== row.handle) {
    await requireGrowth(ctx, "A custom handle");
    await changeHandle(ctx, row, input.handle);
    previous.handle = row.handle;
    next.handle = input.handle;
  }
  const statusChanged = input.status !== undefined && input.status !== (row.active ? "active" : "archived");
  if (statusChanged) {
    next.active = input.status === "active";
    next.archived_at = next.active ? null : ctx.now;
  }
  const changed = Object.keys(previous) as ProjectField[];
  if (!changed.length && !statusChanged) return presentProject(row);
  next.updated_at = ctx.now;
  await projectsTable.rows(ctx).where("projects.id", id).update({
    name: next.name,
    handle: next.handle,
    description: next.description,
    terms_url: next.terms_url,
    privacy_url: next.privacy_url,
    active: next.active,
    archived_at: next.archived_at,
    updated_at: next.updated_at,
  });
  const project = presentProject(next);
  if (changed.length) await recordProjectChange(ctx, "updated", project, { changed_fields: changed, previous });
  if (statusChanged) await recordProjectChange(ctx, next.active ? "restored" : "archived", project);
  return project;
}

/**
 * Deletes the project and, through the foreign keys, everything in it. Its handles stay reserved
 * forever; tokens and groups naming it in an allow-list keep the id, which matches nothing now.
 */
export async function deleteProject(ctx: DomainContext, id: string): Promise<void> {
  const row = await projectById(ctx, id);
  await projectsTable.rows(ctx).where("projects.id", id).delete();
  await projectHandlesTable.teamRows(ctx).where({ project_id: id, retired_at: null }).update({ retired_at: ctx.now });
  await recordProjectChange(ctx, "deleted", presentProject(row));
}
