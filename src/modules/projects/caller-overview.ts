// What a credential's holder is looking at: its team and the projects it may see (tenancy and
// the project allow-list applied), for the MCP resource that orients an agent.
import { allVisibleProjects } from "./projects.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { getCurrentTeam } from "../teams/teams.ts";

/** The team (when `canViewTeam`) and visible projects (when `canViewProjects`); null otherwise. */
export async function callerOverview(ctx: DomainContext, access: { canViewTeam: boolean; canViewProjects: boolean }) {
  return {
    team: access.canViewTeam ? await getCurrentTeam(ctx) : null,
    projects: access.canViewProjects ? await allVisibleProjects(ctx) : null,
  };
}
