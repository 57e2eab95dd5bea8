// The Handlers contract: exactly one handler per operation of the spec, each typed by it.
// The @ts-expect-error lines are the compile-time half: `npm run typecheck` (run by CI) fails on an
// unused directive, so if the generated Handlers type stopped refusing a missing or mistyped
// handler, the build would break here.
import assert from "node:assert/strict";
import { operationList } from "../../generated/operations.ts";
import { handlers } from "../../src/modules/handlers.ts";
import type { AppHandlers } from "../../src/pipeline/execute.ts";
import type { OperationContext } from "../../src/pipeline/context.ts";
import type { AreaHandlers } from "../../generated/operations.ts";

const { get_current_team: _left_out, ...withoutOne } = handlers;
// @ts-expect-error an operation of the spec without a handler
export const missingHandler: AppHandlers = withoutOne;

export const mistypedResult: AppHandlers = {
  ...handlers,
  // @ts-expect-error a result that is not the operation's response schema (id must be a string)
  get_current_team: async () => ({ data: { id: 42, name: "x", owner_user_id: "u", personal: true, created_at: "t" } }),
};

export const unknownInput: AppHandlers = {
  ...handlers,
  // @ts-expect-error reads a query parameter the operation does not declare
  get_activity_log: async (input, ctx) => handlers.get_activity_log({ ...input, query: { ...input.query, limit: input.query.page } }, ctx),
};

export const otherAreasOperation = {
  get_current_team: handlers.get_current_team,
  // @ts-expect-error an area's module holds only its own operations (list_tokens belongs to tokens)
  list_tokens: handlers.list_tokens,
} satisfies AreaHandlers<OperationContext, "teams">;

describe("handlers (src/modules/<area>/handlers.ts, gathered in src/modules/handlers.ts)", () => {
  it("has one handler per operation of the spec, and nothing else", () => {
    assert.deepEqual(Object.keys(handlers).sort(), operationList.map((op) => op.id).sort());
    for (const [id, handler] of Object.entries(handlers)) assert.equal(typeof handler, "function", id);
  });
});
