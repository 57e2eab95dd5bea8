// The tenancy matrix: every authenticated operation of generated/operations.ts, over REST and (for
// MCP tools) over MCP, with the fixtures its area supplies in test/modules/<area>/tenancy-fixtures.ts.
// An operation with path ids: team B's token gets 404 for team A's resource, a token of A
// restricted to one project gets 404 for A's resource outside it, the resource survives, and
// controls show the same ids reach it. An operation without path ids: its area's probe.
// A new operation without a fixture fails here (see ./loader.ts).
import assert from "node:assert/strict";
import type { OperationSpec } from "../../generated/operations.ts";
import { grantableAbilities } from "../../src/modules/tokens/abilities.ts";
import { toolNamed } from "../../src/apps/mcp/tool-catalog.ts";
import type { Window } from "../../src/pipeline/rate-limit.ts";
import { createTestCreator, tokenFor, type TestCreator } from "../helpers/fixtures.ts";
import { ApiClient } from "../helpers/http.ts";
import { startMcp, type RunningMcp } from "../helpers/mcp.ts";
import { startApi, type RunningApi } from "../helpers/server.ts";
import { CallerFactory, expectReached, expectRefused } from "./callers.ts";
import { expectedOperations, isPathFixture, loadFixtures } from "./loader.ts";
import type { CallInput, Caller, FixtureScope, PathFixture, PathParams, ProbeContext, ProbeFixture, Transport } from "./types.ts";

const { byOperation, problems, blocking } = await loadFixtures();

/** The matrix makes many calls per token; the rate limits have their own tests. */
const BUDGET: readonly Window[] = [{ name: "minute", limit: 1_000_000, windowMs: 60_000 }];

describe("tenancy matrix", () => {
  let api: RunningApi;
  let mcp: RunningMcp;
  let callers: CallerFactory;
  let teamA: TestCreator;
  let teamB: TestCreator;

  before(async () => {
    api = await startApi({ budget: BUDGET });
    mcp = await startMcp({ baseUrl: api.url, budget: BUDGET });
    callers = new CallerFactory(api.url, mcp);
    teamA = await createTestCreator({ label: "tenancy-a", projects: 2 });
    teamB = await createTestCreator({ label: "tenancy-b", projects: 2 });
  });
  after(async () => {
    await callers?.close();
    await mcp?.close();
    await api?.close();
  });

  const teamName = (creator: TestCreator) => (creator === teamA ? "team A" : creator === teamB ? "team B" : creator.email);
  const projectName = (id: string) => {
    for (const creator of [teamA, teamB]) {
      const index = creator.projectIds.indexOf(id);
      if (index >= 0) return `${teamName(creator)}'s P${index + 1}`;
    }
    return id;
  };
  const fullToken = (transport: Transport, creator: TestCreator) => callers.caller(transport, creator.token, `${teamName(creator)}'s full token`);
  const restrictedToken = async (transport: Transport, creator: TestCreator, projectIds: readonly string[]): Promise<Caller> => {
    const minted = await tokenFor(creator, [...grantableAbilities], [...projectIds]);
    return callers.caller(transport, minted.token, `a token of ${teamName(creator)} restricted to ${projectIds.map(projectName).join(", ")}`);
  };
  const scopeOfA = (): FixtureScope => ({ owner: teamA, rest: new ApiClient(api.url, teamA.token) });

  it("has one fixture for every authenticated operation, and none for anything else", () => {
    assert.ok(expectedOperations.length > 0, "the operation table lists authenticated operations");
    if (problems.length > 0) assert.fail(`${problems.length} tenancy fixture problem(s):\n  ${problems.join("\n  ")}`);
  });

  for (const op of expectedOperations) {
    const loaded = byOperation.get(op.id);
    const transports: Transport[] = op.mcp ? ["rest", "mcp"] : ["rest"];
    describe(`${op.id} (${op.method} ${op.path})`, () => {
      const blocked = blocking.get(op.id);
      if (blocked || !loaded) {
        it("has one sound tenancy fixture", () => assert.fail(`${op.id}:\n  ${(blocked ?? ["no fixture"]).join("\n  ")}`));
      } else if (isPathFixture(loaded.fixture)) {
        definePathTests(op, loaded.fixture, transports);
      } else {
        defineProbeTests(loaded.fixture as ProbeFixture, transports);
      }
    });
  }

  function definePathTests(op: OperationSpec, fixture: PathFixture, transports: Transport[]): void {
    const inputOf = (params: PathParams): CallInput<typeof op.id> =>
      ({
        path: params,
        ...(fixture.query ? { query: fixture.query(params) } : {}),
        ...(fixture.body ? { body: fixture.body(params) } : {}),
      }) as CallInput<typeof op.id>;
    const shown = (params: PathParams) => JSON.stringify(params);

    if (op.mcp) {
      it("mcp: the tool takes the path parameters as arguments of the same names", () => {
        assert.deepEqual(toolNamed(op.id)?.arguments.path, [...op.pathParams]);
      });
    }

    for (const transport of transports) {
      it(`${transport}: team B's full token gets 404 for team A's ids, which still name A's resource`, async () => {
        const scope = scopeOfA();
        const params = await fixture.create(scope);
        expectRefused(await (await fullToken(transport, teamB)).call(op.id, inputOf(params)));
        assert.ok(await fixture.exists(scope, params), `team A's resource ${shown(params)} still exists after team B's refused ${op.id}`);
        // Control, last (the operation may be destructive): the same ids reach the resource.
        const control = fixture.controlTarget ? await fixture.controlTarget(scope) : { params, token: teamA.token };
        const controlCaller = await callers.caller(transport, control.token, "team A's control token");
        expectReached(await controlCaller.call(op.id, inputOf(control.params)), "control: team A's token reaches its resource");
        if (op.method === "DELETE") {
          assert.ok(!(await fixture.exists(scope, control.params)), `exists() tells a deleted ${shown(control.params)} from a live one`);
        }
      });

      if (fixture.outside === null) continue;
      const outside = fixture.outside;
      it(`${transport}: a token of team A restricted to P1 gets 404 for A's resources outside P1, and reaches one inside`, async () => {
        const scope = scopeOfA();
        const allowList = [teamA.projectIds[0]!];
        const restricted = await restrictedToken(transport, teamA, allowList);
        const outsiders = await outside(scope, allowList);
        assert.ok(outsiders.length > 0, "outside() returns at least one resource");
        for (const params of outsiders) {
          expectRefused(await restricted.call(op.id, inputOf(params)));
          assert.ok(
            await fixture.exists(scope, params),
            `team A's resource ${shown(params)} still exists after the restricted token's refused ${op.id}`,
          );
        }
        // Controls: the restricted token reaches a resource inside its allow-list, and team A's
        // full token reaches the ones outside it.
        const own = fixture.insideControl ? await fixture.insideControl(scope) : null;
        const inside = own ? own.params : await fixture.create(scope, allowList);
        const insideCaller = own ? await restrictedToken(transport, teamA, own.allowList) : restricted;
        expectReached(await insideCaller.call(op.id, inputOf(inside)), "control: the restricted token reaches a resource inside its allow-list");
        const full = await fullToken(transport, teamA);
        for (const params of outsiders) expectReached(await full.call(op.id, inputOf(params)), "control: team A's full token reaches the resource");
      });
    }
  }

  function defineProbeTests(fixture: ProbeFixture, transports: Transport[]): void {
    for (const transport of fixture.restOnly ? ["rest" as const] : transports) {
      it(`${transport}: the probe (team A's data stays out of team B's reach and out of tokens restricted elsewhere)`, async () => {
        const context: ProbeContext = {
          transport,
          teamA,
          teamB,
          a: await fullToken(transport, teamA),
          b: await fullToken(transport, teamB),
          restricted: (creator, projectIds) => restrictedToken(transport, creator, projectIds),
          as: (token, label) => callers.caller(transport, token, label),
        };
        await fixture.probe(context);
      });
    }
  }
});
