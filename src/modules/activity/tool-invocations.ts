// Every MCP tool invocation (reads and failures included) is recorded with the invoking creator
// and credential kind.
import { recordActivity, type ActivityInput } from "./activity-log.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { projectsTable } from "../projects/projects.ts";
import { UUID } from "../../uuid.ts";

export interface ToolInvocation {
  tool: string;
  /** "ok", or the error code the call answered. */
  outcome: string;
  arguments: Record<string, unknown>;
  /** The project the arguments name (path parameter `project`), if any. */
  projectId: string | null;
}

/**
 * The entry of one invocation: against the project the call named when that is a project of the
 * actor's team inside its allow-list, else against the team (subject_type "team"), so a call
 * naming someone else's project leaves no trace on it. Made at once when the call names no project;
 * otherwise once the project is looked up (against the team when the lookup fails).
 */
export function toolInvocationEntry(ctx: DomainContext, invocation: ToolInvocation): ActivityInput | Promise<ActivityInput> {
  const candidate = invocation.projectId;
  if (candidate === null || !UUID.test(candidate)) return entryAgainst(ctx, invocation, null);
  return projectsTable
    .rows(ctx)
    .where("projects.id", candidate)
    .first("id")
    .then(
      (own) => entryAgainst(ctx, invocation, own === undefined ? null : candidate),
      // The lookup failed (the database is unreachable): the entry still goes, against the team.
      () => entryAgainst(ctx, invocation, null),
    );
}

function entryAgainst(ctx: DomainContext, invocation: ToolInvocation, projectId: string | null): ActivityInput {
  return {
    event: "tool_invoked",
    description: `MCP tool ${invocation.tool} called`,
    subjectType: projectId === null ? "team" : "project",
    subjectId: projectId ?? ctx.actor.teamId,
    projectId,
    properties: { tool: invocation.tool, outcome: invocation.outcome, arguments: invocation.arguments },
  };
}

/** Records an invocation in the caller's transaction: a successful write's commits with the write. */
export async function recordToolInvocation(ctx: DomainContext, invocation: ToolInvocation): Promise<void> {
  await recordActivity(ctx, await toolInvocationEntry(ctx, invocation));
}
