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
 * naming someone else's project leaves no trace on it.
 */
export async function toolInvocationEntry(ctx: DomainContext, invocation: ToolInvocation): Promise<ActivityInput> {
  const candidate = invocation.projectId;
  const ownProject =
    candidate !== null && UUID.test(candidate) && (await projectsTable.rows(ctx).where("projects.id", candidate).first("id")) !== undefined;
  return {
    event: "tool_invoked",
    description: `MCP tool ${invocation.tool} called`,
    subjectType: ownProject ? "project" : "team",
    subjectId: ownProject ? candidate! : ctx.actor.teamId,
    projectId: ownProject ? candidate : null,
    properties: { tool: invocation.tool, outcome: invocation.outcome, arguments: invocation.arguments },
  };
}

/** Records an invocation in the caller's transaction: a successful write's commits with the write. */
export async function recordToolInvocation(ctx: DomainContext, invocation: ToolInvocation): Promise<void> {
  await recordActivity(ctx, await toolInvocationEntry(ctx, invocation));
}
