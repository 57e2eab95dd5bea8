// The MCP adapter of the pipeline (src/pipeline/run.ts) for one tools/call: the flat arguments
// split into the REST operation's path, query and body, prepared (tenancy, ability, validation)
// and executed acting as "mcp", the result or the error envelope turned into a tool result.
// Every invocation is recorded: a write's in the write's own transaction (they commit together,
// before the result is sent), a read's or a refusal's, which changed nothing, through the grouped
// writer (group commit), written within moments of the answer rather than before it.
// A write given an idempotency_key runs through REST's idempotency layer (src/pipeline/idempotency.ts):
// a retry with the same key and arguments answers the kept result, recorded as "replayed".
import type { Logger } from "pino";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { toApiError } from "../../errors.ts";
import { createDomainContext } from "../../db/tenant.ts";
import { recordToolInvocation, toolInvocationEntry, type ToolInvocation } from "../../modules/activity/tool-invocations.ts";
import type { GroupedActivityWriter } from "../../modules/activity/grouped-writer.ts";
import { PROJECT_PARAM } from "../../pipeline/authorize.ts";
import type { Principal } from "../../pipeline/context.ts";
import { actorOf, prepareOperation, type PipelineDeps } from "../../pipeline/run.ts";
import { idempotencyClaim, runIdempotently } from "../../pipeline/idempotency.ts";
import type { ExecutionHooks } from "../../pipeline/execute.ts";
import { operationOfTool, type ToolDefinition } from "./tool-catalog.ts";
import { canonicalArguments, IDEMPOTENCY_KEY_ARGUMENT, restUrlOfCall, splitToolArguments } from "./tool-arguments.ts";
import { toolFailure, toolSuccess } from "./tool-result.ts";

export interface ToolCallDeps extends PipelineDeps {
  /** REST base URL (list envelopes link to REST pages). */
  baseUrl: string;
  docsUrl: string;
  logger: Logger;
  /** Where reads' and refusals' invocation entries are written (one per process: Services.activity). */
  invocations: GroupedActivityWriter;
  /** Answer a read or a refusal only once its entry is committed (MCP_INVOCATION_ENTRIES=committed). */
  awaitInvocationEntries?: boolean;
}

export interface ToolCaller {
  principal: Principal;
  requestId: string;
}

export async function invokeTool(
  deps: ToolCallDeps,
  caller: ToolCaller,
  tool: ToolDefinition,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  const { principal, requestId } = caller;
  const op = operationOfTool(tool);
  const now = deps.now();
  const { raw, problems, toolOnly } = splitToolArguments(tool, args);
  const idempotencyKey = toolOnly[IDEMPOTENCY_KEY_ARGUMENT];
  delete toolOnly[IDEMPOTENCY_KEY_ARGUMENT];
  const projectId = raw.path[PROJECT_PARAM] ?? null;
  try {
    const prepared = await prepareOperation(deps, {
      op,
      principal,
      path: raw.path,
      query: raw.query,
      body: () => raw.body,
      problems,
      toolArguments: toolOnly,
      actorKind: "mcp",
      requestId,
      resourceUrl: () => restUrlOfCall(deps.baseUrl, op.path, raw),
      now,
    });
    let output: unknown;
    if (op.write) {
      const record: ExecutionHooks["beforeCommit"] = (domain) => recordToolInvocation(domain, invocationOf(tool, args, projectId, "ok"));
      if (idempotencyKey === undefined) output = await prepared.execute({ beforeCommit: record });
      else {
        const claim = idempotencyClaim(principal.credentialId, "MCP", tool.name, idempotencyKey, canonicalArguments(args));
        const keeps = op.successBody ? { status: op.successStatus } : null;
        let ran: unknown;
        const replayed = await runIdempotently(deps, claim, now, keeps, async (hooks) => {
          ran = await prepared.execute(joined(hooks, record));
        });
        if (replayed) await recordInvocation(deps, principal, requestId, invocationOf(tool, args, projectId, "replayed"));
        output = replayed ? replayed.body : ran;
      }
    } else {
      output = await prepared.execute();
      await recordInvocation(deps, principal, requestId, invocationOf(tool, args, projectId, "ok"));
    }
    return toolSuccess(tool.name, op.successBody ? output : undefined);
  } catch (err) {
    const apiError = toApiError(err);
    if (apiError.code === "INTERNAL_SERVER_ERROR") deps.logger.error({ request_id: requestId, tool: tool.name, err }, "tool call failed");
    await recordRefusal(deps, principal, requestId, invocationOf(tool, args, projectId, apiError.code));
    return toolFailure(apiError, requestId, deps.docsUrl);
  }
}

/** Both hooks in the write's transaction: the kept result first, then the invocation entry. */
function joined(hooks: ExecutionHooks, record: ExecutionHooks["beforeCommit"]): ExecutionHooks {
  return {
    beforeCommit: async (domain, output) => {
      await hooks.beforeCommit?.(domain, output);
      await record?.(domain, output);
    },
  };
}

function invocationOf(tool: ToolDefinition, args: Record<string, unknown>, projectId: string | null, outcome: string): ToolInvocation {
  return { tool: tool.name, outcome, arguments: args, projectId };
}

/**
 * The entry of a call that changed nothing (a read, a refusal), queued on the grouped writer; the
 * answer waits for it only when the writer is behind (see GroupedActivityWriter.record) or the
 * operator asked for it (MCP_INVOCATION_ENTRIES=committed).
 */
function recordInvocation(deps: ToolCallDeps, principal: Principal, requestId: string, invocation: ToolInvocation): Promise<void> | undefined {
  // Without a visible team there is nowhere to record the call (it was refused as TENANT_MISMATCH).
  if (principal.teamId === null) return undefined;
  const ctx = createDomainContext(deps.db, actorOf(principal as Principal & { teamId: string }, "mcp", requestId), deps.now());
  const entry = toolInvocationEntry(ctx, invocation);
  if (deps.awaitInvocationEntries) return Promise.resolve(entry).then((made) => deps.invocations.write(ctx, made));
  return deps.invocations.record(ctx, entry);
}

/** A refused or failed call changed nothing; its entry is written on its own. */
async function recordRefusal(deps: ToolCallDeps, principal: Principal, requestId: string, invocation: ToolInvocation): Promise<void> {
  try {
    await recordInvocation(deps, principal, requestId, invocation);
  } catch (err) {
    deps.logger.error({ request_id: requestId, tool: invocation.tool, err }, "could not record the tool invocation");
  }
}
