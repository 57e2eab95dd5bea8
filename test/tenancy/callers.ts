// Callers for the tenancy matrix: one credential calling operations over REST (ApiClient, which
// also checks every response against the spec) or over MCP (a tools/call whose arguments are the
// path, query and body fields), both answering a CallResult; and the assertions on it.
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { operationTable, type OperationId } from "../../generated/operations.ts";
import { toolNamed } from "../../src/apps/mcp/tool-catalog.ts";
import { ApiClient } from "../helpers/http.ts";
import { connectMcp, type RunningMcp } from "../helpers/mcp.ts";
import type { CallInput, CallResult, Caller, Transport } from "./types.ts";

/** The codes a tenancy refusal may carry; both answer 404. */
export const TENANCY_CODES = ["RESOURCE_NOT_FOUND", "TENANT_MISMATCH"] as const;
export type TenancyCode = (typeof TENANCY_CODES)[number];

function fillPath(template: string, params: Record<string, string> = {}): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no value for the path parameter ${name} of ${template}`);
    return encodeURIComponent(value);
  });
}

function queryString(query: Record<string, unknown> = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(key, String(item));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

export class RestCaller implements Caller {
  readonly transport = "rest" as const;
  private readonly client: ApiClient;

  constructor(
    baseUrl: string,
    token: string,
    readonly label: string,
  ) {
    this.client = new ApiClient(baseUrl, token);
  }

  async call<Id extends OperationId>(id: Id, input: CallInput<Id> = {}): Promise<CallResult> {
    const op = operationTable[id];
    const target = fillPath(op.path, input.path as Record<string, string> | undefined) + queryString(input.query as Record<string, unknown>);
    const request = `${op.method} ${target} (${this.label})`;
    const res = await this.client.request(op.method, target, input.body !== undefined ? { body: input.body } : {});
    if (res.status < 400) return { ok: true, transport: "rest", request, status: res.status, body: res.body };
    return { ok: false, transport: "rest", request, status: res.status, code: res.body?.error?.code, body: res.body };
  }
}

export class McpCaller implements Caller {
  readonly transport = "mcp" as const;

  constructor(
    private readonly client: Client,
    readonly label: string,
    /** The MCP surface's writer has written the entries of the calls answered so far. */
    private readonly settled: () => Promise<void>,
  ) {}

  async call<Id extends OperationId>(id: Id, input: CallInput<Id> = {}): Promise<CallResult> {
    const tool = toolNamed(id);
    if (!tool) throw new Error(`${id} is not an MCP tool (its ability is not RM): call it over REST only`);
    const args: Record<string, unknown> = { ...input.path, ...(input.query as Record<string, unknown>) };
    if (input.body !== undefined) {
      if (tool.arguments.body === "body") args.body = input.body;
      else Object.assign(args, input.body);
    }
    const request = `tools/call ${id} ${JSON.stringify(args)} (${this.label})`;
    const result = await this.client.callTool({ name: id, arguments: args });
    // A read's or a refusal's invocation entry is written just after the answer: the tests look for it.
    await this.settled();
    const body = result.structuredContent ?? null;
    if (result.isError !== true) return { ok: true, transport: "mcp", request, status: null, body };
    return { ok: false, transport: "mcp", request, status: null, code: (body as any)?.error?.code, body };
  }
}

/** Makes callers over one transport and closes their MCP connections at the end. */
export class CallerFactory {
  private readonly clients: Client[] = [];
  private readonly cache = new Map<string, Promise<Caller>>();

  constructor(
    private readonly apiUrl: string,
    private readonly mcp: RunningMcp,
  ) {}

  /** A caller with `token` over `transport` (one MCP connection per token and label, reused). */
  caller(transport: Transport, token: string, label: string): Promise<Caller> {
    if (transport === "rest") return Promise.resolve(new RestCaller(this.apiUrl, token, label));
    const key = JSON.stringify([token, label]);
    let caller = this.cache.get(key);
    if (!caller) {
      caller = connectMcp(this.mcp, token).then((client) => {
        this.clients.push(client);
        return new McpCaller(client, label, () => this.mcp.settled());
      });
      this.cache.set(key, caller);
    }
    return caller;
  }

  async close(): Promise<void> {
    this.cache.clear();
    await Promise.all(this.clients.splice(0).map((c) => c.close()));
  }
}

function describeResult(result: CallResult): string {
  const answer = result.status !== null ? String(result.status) : result.ok ? "a success result" : "an isError result";
  return `${result.request} answered ${answer}: ${JSON.stringify(result.body ?? null).slice(0, 400)}`;
}

/**
 * The call was refused as tenancy requires: 404 over REST (never 403, never 2xx), an isError
 * result over MCP, with one of `codes` (default: RESOURCE_NOT_FOUND or TENANT_MISMATCH).
 */
export function expectRefused(result: CallResult, codes: readonly TenancyCode[] = TENANCY_CODES): void {
  const due = `404 ${codes.join(" or ")} was due`;
  if (result.ok || (result.transport === "rest" && result.status !== 404)) assert.fail(`tenancy defect: ${describeResult(result)}; ${due}`);
  if (!(codes as readonly string[]).includes(result.code ?? "")) assert.fail(`${describeResult(result)}; ${due}`);
}

/** The call succeeded (2xx over REST, no isError over MCP); returns the body. */
export function expectReached(result: CallResult, why = "positive control"): any {
  if (!result.ok) assert.fail(`${why}: ${describeResult(result)}; a success was due`);
  return result.body;
}
