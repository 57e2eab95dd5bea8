// Tenancy: a credential acts on exactly one team. No visible team scope -> TENANT_MISMATCH before
// any handler; a project path parameter outside the allow-list -> 404 TENANT_MISMATCH before any
// handler. Another team's ids and the allow-list, operation by operation, over REST and MCP: the
// tenancy matrix (test/tenancy/matrix.test.ts, fixtures in test/modules/<area>/tenancy-fixtures.ts).
import assert from "node:assert/strict";
import { startApi, type RunningApi } from "../helpers/server.ts";
import { ApiClient, expectError } from "../helpers/http.ts";
import { createTestCreator, joinTeamWithToken, tokenFor, type TestCreator } from "../helpers/fixtures.ts";
import { authenticatedOperations, samplePath } from "../helpers/operations.ts";
import { testDatabase } from "../helpers/backends.ts";
import { authorizeOperation } from "../../src/pipeline/authorize.ts";
import { applyCredentialEffects } from "../../src/pipeline/credential-cache.ts";
import { commitEffectsOf, createDomainContext, systemActor } from "../../src/db/tenant.ts";
import { removeMember } from "../../src/modules/teams/members.ts";
import type { OperationSpec } from "../../generated/operations.ts";
import type { Principal } from "../../src/pipeline/context.ts";

describe("tenancy", () => {
  let api: RunningApi;
  let teamA: TestCreator;
  before(async () => {
    api = await startApi();
    teamA = await createTestCreator({ label: "team-a", projects: 2 });
  });
  after(() => api.close());

  describe("a credential without a visible team scope", () => {
    let orphan: string;
    before(async () => {
      const { db } = await testDatabase();
      const minted = await tokenFor(teamA, ["team:view", "token:view-any", "token:delete", "token:create", "activity:read"]);
      await db("personal_access_tokens").where({ id: minted.id }).update({ team_id: null });
      orphan = minted.token;
    });

    for (const op of authenticatedOperations) {
      it(`is refused with 404 TENANT_MISMATCH on ${op.id} before the handler runs`, async () => {
        const res = await new ApiClient(api.url, orphan).request(op.method, samplePath(op), op.body ? { body: {} } : {});
        expectError(res, 404, "TENANT_MISMATCH");
      });
    }

    it("covers a creator removed from the team the token was minted on: revoked from the very next request", async () => {
      const { db } = await testDatabase();
      const member = await createTestCreator({ label: "member" });
      const minted = await joinTeamWithToken(teamA, member, ["team:view"]);
      const client = new ApiClient(api.url, minted.token);
      // Twice: the second answer comes from the credential cache.
      assert.equal((await client.get("/v1/teams/current")).body.data.id, teamA.teamId);
      assert.equal((await client.get("/v1/teams/current")).body.data.id, teamA.teamId);
      const removal = createDomainContext(db, systemActor(teamA.teamId), new Date());
      await removeMember(removal, member.userId);
      await applyCredentialEffects(api.deps.kv, commitEffectsOf(removal));
      expectError(await client.get("/v1/teams/current"), 401, "AUTHENTICATION_REQUIRED");
      expectError(await client.get("/v1/teams/current"), 401, "AUTHENTICATION_REQUIRED");
    });
  });

  // Per-operation checks (another team's ids, the project allow-list, over REST and MCP) are the
  // tenancy matrix: test/tenancy/matrix.test.ts, with each area's fixtures in test/modules/<area>/.
  describe("the project allow-list", () => {
    it("refuses a project path parameter outside it before the handler (authorizeOperation)", () => {
      const op = { id: "x", ability: "project:view", pathParams: ["project"] } as unknown as OperationSpec;
      const principal: Principal = {
        credentialKind: "personal_access_token",
        credentialId: "1",
        userId: teamA.userId,
        teamId: teamA.teamId,
        abilities: new Set(["project:view"]),
        projectAbilities: new Map(),
        projectIds: [teamA.projectIds[0]!],
      };
      assert.doesNotThrow(() => authorizeOperation(op, principal, { project: teamA.projectIds[0]! }));
      assert.throws(
        () => authorizeOperation(op, principal, { project: teamA.projectIds[1]! }),
        (err: { code?: string; status?: number }) => {
          return err.code === "TENANT_MISMATCH" && err.status === 404;
        },
      );
    });
  });
});
