// What a credential's holder is looking at: its team and the projects it may see (tenancy and
// the project allow-list applied), for the MCP resource that orients an agent.
import { projectsTable } from "./projects.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { getCurrentTeam } from "../teams/teams.ts";

export async function visibleProjects(ctx: DomainContext) {
  const rows = await projectsTable
    .rows(ctx)
    .orderBy([{ column: "created_at", order: "asc" }, { column: "id" }])
    .select("id", "name", "handle", "description", "active", "created_at");
  return rows.map((r: { id: string; name: string; handle: string; description: string | null; active: boolean; created_at: Date }) => ({
    id: r.id,
    name: r.name,
    handle: r.handle,
    description: r.description,
    active: r.active,
    created_at: new Date(r.created_at).toISOString(),
  }));
}

/** The team (when `canViewTeam`) and visible projects (when `canViewProjects`); null otherwise. */
export async function callerOverview(ctx: DomainContext, access: { canViewTeam: boolean; canViewProjects: boolean }) {
  return {
    team: access.canViewTeam ? await getCurrentTeam(ctx) : null,
    projects: access.canViewProjects ? await visibleProjects(ctx) : null,
  };
}
