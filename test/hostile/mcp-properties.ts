// Property-based hostile input over MCP, derived from generated/mcp-tools.json: for every tool and
// every family, tools/call arguments with one hostile place among valid-looking ones, sent with
// the MCP SDK client when it can carry them faithfully and as a hand-built JSON-RPC body when not.
// No call fails inside the server, refusals carry the envelope, and every call that reaches the
// tool leaves exactly one tool_invoked entry whose properties PostgreSQL stored.
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { connectMcp, startMcp, type RunningMcp } from "../helpers/mcp.ts";
import { toolModels, type ToolModel } from "./spec-model.ts";
import { FAMILIES } from "./hostile-values.ts";
import { describeToolCase, rawToolCall, rawToolHeaders, sendableBySdk, toolCases, type ToolCase } from "./mcp-cases.ts";
import { expectTool, readBody, type Expectation } from "./oracle.ts";
import { checkToolAnswer, type ToolAnswer } from "./invariants.ts";
import { closeConnections, header, send } from "./raw-http.ts";
import { GENEROUS_BUDGET, readable, runProperty, runsFor, SEED, type RunCounts } from "./run.ts";
import { hostileWorld, toolEntriesSince, type World } from "./world.ts";
import { unsafeSpots } from "./json-text.ts";

/** The properties, `counts` runs each (the fast tier's mcp.test.ts and the slow tier's mcp.slow.test.ts). */
export function describeMcpHostile(counts: RunCounts): void {
  describe(`hostile input over MCP (generated from mcp-tools.json; ${counts.perFamily} runs per tool and family, ${counts.oversized} oversized, seed ${SEED})`, function () {
    this.timeout(300_000);
    let mcp: RunningMcp;
    let world: World;
    let client: Client;
    let rpcId = 1;

    before(async () => {
      mcp = await startMcp({ budget: GENEROUS_BUDGET, unauthenticatedBudget: GENEROUS_BUDGET });
      world = await hostileWorld();
      client = await connectMcp(mcp, world.token);
    });
    after(async () => {
      closeConnections();
      await client?.close();
      await mcp?.close();
    });

    /** One tools/call; `unauthorized` when the token is gone (a hostile delete_token took it). */
    async function call(c: ToolCase): Promise<ToolAnswer | "unauthorized"> {
      if (sendableBySdk(c.args)) {
        try {
          return { result: await client.callTool({ name: c.tool.name, arguments: c.args }) };
        } catch (err) {
          const e = err as Error & { code?: unknown; status?: unknown };
          if (e.status === 401 || /\b401\b/.test(e.message)) return "unauthorized";
          if (typeof e.code === "number") return { rpcError: { code: e.code, message: e.message } };
          throw err;
        }
      }
      const answer = await send(mcp.url, "POST", "/", rawToolHeaders(c.tool.name, world.token), rawToolCall(c.tool.name, c.args, rpcId++));
      if (answer.status === 401) return "unauthorized";
      const rpc = answer.json as { jsonrpc?: string; result?: Record<string, unknown>; error?: { code: unknown; message: string } } | undefined;
      const requestIdHeader = header(answer, "x-request-id");
      if (rpc?.jsonrpc === "2.0" && rpc.result) return { httpStatus: answer.status, requestIdHeader, result: rpc.result };
      if (rpc?.jsonrpc === "2.0" && typeof rpc.error?.code === "number") {
        return { httpStatus: answer.status, requestIdHeader, rpcError: { code: rpc.error.code, message: rpc.error.message } };
      }
      return { httpStatus: answer.status, requestIdHeader, httpBody: answer.json ?? answer.text };
    }

    /** What the server must conclude from the bytes it receives. */
    function expectationOf(c: ToolCase): Expectation {
      const body = rawToolCall(c.tool.name, c.args, 0);
      const read = readBody(body, false);
      if (read.problem) return { refusal: "422", names: new Set(read.names), reasons: [read.problem] };
      return expectTool(c.tool, (read.json as { params: { arguments: unknown } }).params.arguments);
    }

    async function exercise(c: ToolCase): Promise<string> {
      const expected = expectationOf(c);
      for (let attempt = 0; ; attempt++) {
        // Every earlier call's entry was settled before this call, and an entry's time is taken
        // during its call on this process's clock: one written since `since` and not in `before`
        // is this call's (the margin only keeps the window safe from the clock's own steps).
        const since = new Date(Date.now() - 100);
        const before = new Set((await toolEntriesSince(world, since, "id")).map((entry) => entry.id as string));
        const answer = await call(c);
        if (answer === "unauthorized" && attempt === 0) {
          await world.remint();
          await client.close();
          client = await connectMcp(mcp, world.token);
          continue;
        }
        assert.notEqual(answer, "unauthorized", "401 with a freshly minted token");
        const outcome = checkToolAnswer(c.tool, answer as ToolAnswer, expected);
        await mcp.settled(); // a read's or a refusal's entry is written just after the answer
        const added = (await toolEntriesSince(world, since)).filter((entry) => !before.has(entry.id as string));
        if (outcome === null) {
          // Refused before a tool ran (an unreadable body, a JSON-RPC error): nothing was invoked.
          assert.equal(added.length, 0, `${c.tool.name}: a refused request left ${added.length} tool_invoked entries`);
          const a = answer as ToolAnswer;
          return a.rpcError ? `JSON-RPC ${a.rpcError.code}` : `HTTP ${a.httpStatus}`;
        }
        assert.equal(added.length, 1, `${c.tool.name} (${outcome}) left ${added.length} tool_invoked entries, not 1`);
        checkStoredEntry(c.tool, outcome, added[0]!, (answer as ToolAnswer).result!);
        return outcome;
      }
    }

    function checkStoredEntry(tool: ToolModel, outcome: string, row: Record<string, any>, result: Record<string, any>): void {
      const properties = typeof row.properties === "string" ? JSON.parse(row.properties) : row.properties;
      assert.ok(properties && typeof properties === "object", `${tool.name}: stored properties are ${JSON.stringify(row.properties)}`);
      const unsafe = unsafeSpots(properties);
      assert.deepEqual(unsafe, [], `${tool.name}: stored properties hold NUL, lone surrogates or non-finite numbers at ${unsafe}`);
      assert.equal(properties.tool, tool.name, `${tool.name}: the entry names tool ${properties.tool}`);
      assert.equal(properties.outcome, outcome, `${tool.name}: the entry records outcome ${properties.outcome}, the call answered ${outcome}`);
      const requestId = result.structuredContent?.error?.request_id;
      if (requestId) assert.equal(row.request_id, requestId, `${tool.name}: the entry's request id differs from the envelope's`);
    }

    for (const tool of toolModels) {
      describe(`tool ${tool.name}`, () => {
        for (const family of FAMILIES) {
          it(family, async () => {
            await world.topUpTokens();
            const cases = toolCases(tool, family, world.anchors).map((c) => readable(c, describeToolCase));
            await runProperty(`mcp ${tool.name} ${family}`, cases, exercise, runsFor(counts, family));
          });
        }
      });
    }
  });
}
