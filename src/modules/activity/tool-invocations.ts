// Every MCP tool invocation (reads and failures included) is recorded with the invoking creator
// and credential kind. The entry is written after the call in its own transaction: a write's
// domain entry already committed with the change, and a failed call has no transaction to join.
import type { Knex } from "knex";
import { recordActivity } from "./activity-log.ts";
import { inAllowList, type Actor } from "../../db/tenant.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface ToolInvocation {
  tool: string;
  /** "ok", or the error code the call answered. */
  outcome: string;
  arguments: Record<string, unknown>;
  /** The project the arguments name (path parameter `project`), if any. */
  projectId: string | null;
}

/**
 * Records one invocation against the project the call named when that is a project of the
 * actor's team inside its allow-list, else against the team (subject_type "team"), so a call
 * naming someone else's project leaves no trace on it.
 */
export async function recordToolInvocation(db: Knex, actor: Actor, now: Date, invocation: ToolInvocation): Promise<void> {
  await db.transaction(async (trx) => {
    const candidate = invocation.projectId;
    const ownProject =
      candidate !== null &&
      UUID.test(candidate) &&
      inAllowList(actor, candidate) &&
      (await trx("projects").where({ id: candidate, team_id: actor.teamId }).first("id")) !== undefined;
    await recordActivity(
      { db: trx, actor, now },
      {
        event: "tool_invoked",
        description: `MCP tool ${invocation.tool} called`,
        subjectType: ownProject ? "project" : "team",
        subjectId: ownProject ? candidate! : actor.teamId,
        projectId: ownProject ? candidate : null,
        properties: { tool: invocation.tool, outcome: invocation.outcome, arguments: invocation.arguments },
      },
    );
  });
}
