// Every Projects operation without a credential (401) and with a token lacking its ability (403
// TOKEN_MISSING_ABILITY naming it), over REST and MCP; nothing changes. Another team's ids and the
// allow-list: the tenancy matrix (tenancy-fixtures.ts) and the area's other tests.
import assert from "node:assert/strict";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { createTestCreator, tokenFor, type TestCreator } from "../../helpers/fixtures.ts";
import { startApi, type RunningApi } from "../../helpers/server.ts";
import { startMcp, type RunningMcp } from "../../helpers/mcp.ts";
import { grantableAbilities } from "../../../src/modules/tokens/abilities.ts";
import { CallerFactory } from "../../tenancy/callers.ts";
import type { CallInput } from "../../tenancy/types.ts";
import { snapshot } from "./support.ts";

type ProjectOperation = "list_projects" | "create_project" | "get_project" | "update_project" | "delete_project";

describe("projects: credentials and abilities", () => {
  let api: RunningApi;
  let mcp: RunningMcp;
  let callers: CallerFactory;
  let owner: TestCreator;
  before(async () => {
    api = await startApi();
    mcp = await startMcp({ baseUrl: api.url });
    callers = new CallerFactory(api.url, mcp);
    owner = await createTestCreator({ label: "projects-access", projects: 1 });
  });
  after(async () => {
    await callers?.close();
    await mcp?.close();
    await api?.close();
  });

  const operations = (): [ProjectOperation, string, string, string, CallInput<ProjectOperation>][] => {
    const project = { project: owner.projectIds[0]! };
    return [
      ["list_projects", "GET", "/v1/projects", "project:view-any", {}],
      ["create_project", "POST", "/v1/projects", "project:create", { body: { name: "Refused" } }],
      ["get_project", "GET", `/v1/projects/${project.project}`, "project:view", { path: project }],
      ["update_project", "PATCH", `/v1/projects/${project.project}`, "project:update", { path: project, body: { name: "Refused" } }],
      ["delete_project", "DELETE", `/v1/projects/${project.project}`, "project:delete", { path: project }],
    ];
  };

  it("answers 401 AUTHENTICATION_REQUIRED without a credential, for every operation", async () => {
    const anonymous = new ApiClient(api.url);
    for (const [, method, path, , input] of operations()) {
      expectError(await anonymous.request(method, path, input.body ? { body: input.body } : {}), 401, "AUTHENTICATION_REQUIRED");
    }
  });

  for (const transport of ["rest", "mcp"] as const) {
    it(`${transport}: answers 403 TOKEN_MISSING_ABILITY naming the ability, for every operation, changing nothing`, async () => {
      for (const [id, , , ability, input] of operations()) {
        const without = await tokenFor(
          owner,
          grantableAbilities.filter((a) => a !== ability),
        );
        const caller = await callers.caller(transport, without.token, `a token without ${ability}`);
        const before = await snapshot(owner.teamId);
        const result = await caller.call(id, input);
        assert.equal(result.ok, false, `${id} succeeded without ${ability}`);
        if (!result.ok) {
          assert.equal(result.code, "TOKEN_MISSING_ABILITY", result.request);
          if (transport === "rest") assert.equal(result.status, 403);
          assert.deepEqual(result.body.error.context, { required_ability: ability });
        }
        const after = await snapshot(owner.teamId);
        // MCP records each tool call (tool_invoked), which the snapshot leaves out.
        assert.deepEqual(after, before, `${id}: nothing changed`);
      }
    });
  }
});
