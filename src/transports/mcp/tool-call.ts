// One tool call through the transport-neutral pipeline REST uses (authentication and the rate
// limit already ran at the HTTP layer): tenancy and ability (authorizeOperation), the generated
// validators (validateInput), then the operation's handler (executeOperation) acting as "mcp".
// Afterwards the invocation is recorded, whatever its outcome.
import type { Knex } from "knex";
import type { Logger } from "pino";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { addFieldError, ApiError, emptyFieldErrors, internalError, mergeFieldErrors, validationFailed, type FieldErrors } from "../../errors.ts";
import type { Actor } from "../../db/tenant.ts";
import { recordToolInvocation } from "../../modules/activity/tool-invocations.ts";
import { authorizeOperation, PROJECT_PARAM } from "../../pipeline/authorize.ts";
import type { OperationContext, Principal } from "../../pipeline/context.ts";
import { executeOperation, type AppHandlers } from "../../pipeline/execute.ts";
import { validateInput, type RawInput } from "../../pipeline/validate.ts";
import type { Input, OperationId, OperationSpec } from "../../../generated/operations.ts";
import { operationOfTool, type ToolDefinition } from "./tool-catalog.ts";
import { restUrlOfCall, splitToolArguments } from "./tool-arguments.ts";
import { toolFailure, toolSuccess } from "./tool-result.ts";

export interface ToolCallDeps {
  db: Knex;
  handlers: AppHandlers;
  now: () => Date;
  release: string;
  /** REST base URL (list envelopes link to REST pages). */
  baseUrl: string;
  docsUrl: string;
  logger: Logger;
  connectors: OperationContext["connectors"];
}

export interface ToolCaller {
  principal: Principal;
  requestId: string;
}

/**
 * validateInput, with what only a tool call can get wrong (unknown keys, a missing or non-string
 * path parameter) reported in the same VALIDATION_FAILED, so one answer lists every problem.
 */
function validateToolInput<Id extends OperationId>(op: OperationSpec & { id: Id }, raw: RawInput, problems: FieldErrors): Input<Id> {
  if (Object.keys(problems).length === 0) return validateInput(op, raw);
  const fields = mergeFieldErrors(emptyFieldErrors(), problems);
  try {
    validateInput(op, raw);
  } catch (err) {
    if (!(err instanceof ApiError) || !err.fields) throw validationFailed(fields);
    for (const [key, messages] of Object.entries(err.fields)) if (!Object.hasOwn(fields, key)) addFieldError(fields, key, ...messages);
  }
  throw validationFailed(fields);
}

function mcpActor(principal: Principal, teamId: string, requestId: string): Actor {
  return { userId: principal.userId, teamId, projectIds: principal.projectIds, kind: "mcp", credentialKind: principal.credentialKind, requestId };
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
  let result: CallToolResult;
  let outcome = "ok";
  const { raw, problems } = splitToolArguments(tool, args);
  try {
    authorizeOperation(op, principal, raw.path);
    const actor = mcpActor(principal, principal.teamId, requestId);
    const input = validateToolInput(op, raw, problems);
    const output = await executeOperation(deps.db, deps.handlers, op, input, {
      now,
      requestId,
      principal,
      actor,
      resourceUrl: restUrlOfCall(deps.baseUrl, op.path, raw),
      release: deps.release,
      connectors: deps.connectors,
    });
    result = toolSuccess(tool.name, op.successBody ? output : undefined);
  } catch (err) {
    let apiError: ApiError;
    if (err instanceof ApiError) {
      apiError = err;
    } else {
      deps.logger.error({ request_id: requestId, tool: tool.name, err }, "tool call failed");
      apiError = internalError();
    }
    outcome = apiError.code;
    result = toolFailure(apiError, requestId, deps.docsUrl);
  }

  // Without a visible team there is nowhere to record the call (it was refused as TENANT_MISMATCH).
  if (principal.teamId !== null) {
    const actor = mcpActor(principal, principal.teamId, requestId);
    const projectId = raw.path[PROJECT_PARAM] ?? null;
    try {
      await recordToolInvocation(deps.db, actor, deps.now(), { tool: tool.name, outcome, arguments: args, projectId });
    } catch (err) {
      // The call's own effects stand (a write committed with its domain entry); report loudly.
      deps.logger.error({ request_id: requestId, tool: tool.name, err }, "could not record the tool invocation");
    }
  }
  return result;
}
