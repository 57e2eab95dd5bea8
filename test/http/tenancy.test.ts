// Tenancy: a credential acts on exactly one team. No visible team scope -> TENANT_MISMATCH before
// any handler; another team's ids -> 404 (never 403); the project allow-list -> 404.
import assert from "node:assert/strict";
import { startApi, type RunningApi } from "../helpers/server.ts";
import { ApiClient, expectError } from "../helpers/http.ts";
import { createTestCreator, joinTeamWithToken, tokenFor, type TestCreator } from "../helpers/fixtures.ts";
import { authenticatedOperations, samplePath } from "../helpers/operations.ts";
import { testDatabase } from "../helpers/backends.ts";
import { authorizeOperation } from "../../src/operations/authorize.ts";
import type { OperationSpec } from "../../generated/operations.ts";
import type { Principal } from "../../src/operations/context.ts";

describe("tenancy", () => {
  let api: RunningApi;
  let teamA: TestCreator;
  let teamB: TestCreator;
  let a: ApiClient;
  let b: ApiClient;
  before(async () => {
    api = await startApi();
    teamA = await createTestCreator({ label: "team-a", projects: 2 });
    teamB = await createTestCreator({ label: "team-b" });
    a = new ApiClient(api.url, teamA.token);
    b = new ApiClient(api.url, teamB.token);
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

    it("covers a creator removed from the team the token was minted on", async () => {
      const { db } = await testDatabase();
      const member = await createTestCreator({ label: "member" });
      const minted = await joinTeamWithToken(teamA, member, ["team:view"]);
      const client = new ApiClient(api.url, minted.token);
      assert.equal((await client.get("/v1/teams/current")).body.data.id, teamA.teamId);
      await db("team_members").where({ team_id: teamA.teamId, user_id: member.userId }).delete();
      expectError(await client.get("/v1/teams/current"), 404, "TENANT_MISMATCH");
    });
  });

  describe("another team's ids", () => {
    /** How each operation is probed with team A's ids through team B's token. */
    const probes: Record<string, () => Promise<void>> = {
      async get_current_team() {
        assert.equal((await b.get("/v1/teams/current")).body.data.id, teamB.teamId);
      },
      async list_tokens() {
        const ids = (await b.get("/v1/tokens?per_page=100")).body.data.map((t: { id: string }) => t.id);
        assert.ok(!ids.includes(teamA.tokenId));
      },
      async delete_token() {
        expectError(await b.delete(`/v1/tokens/${teamA.tokenId}`), 404, "RESOURCE_NOT_FOUND");
        assert.equal((await a.get("/v1/teams/current")).status, 200, "team A's token still works");
      },
      async create_token() {
        const res = await b.post("/v1/tokens", { name: "sneaky", abilities: ["team:view"], project_ids: [teamA.projectIds[0]] });
        expectError(res, 404, "RESOURCE_NOT_FOUND");
      },
      async get_activity_log() {
        expectError(await b.get(`/v1/activity?subject_type=project&subject_id=${teamA.projectIds[0]}`), 404, "RESOURCE_NOT_FOUND");
        expectError(await b.get(`/v1/activity?subject_type=team&subject_id=${teamA.teamId}`), 404, "RESOURCE_NOT_FOUND");
        assert.equal((await a.get(`/v1/activity?subject_type=project&subject_id=${teamA.projectIds[0]}`)).status, 200);
      },
      async list_connectors() {
        // The catalog is the platform's, not a team's: B sees exactly what A sees, and none of A's ids.
        const seenByB = (await b.get("/v1/connectors?per_page=100")).body;
        assert.deepEqual(seenByB, (await a.get("/v1/connectors?per_page=100")).body);
        assert.ok(seenByB.meta.total > 0);
        const text = JSON.stringify(seenByB);
        for (const id of [teamA.teamId, teamA.userId, ...teamA.projectIds]) assert.ok(!text.includes(id), `team A's ${id} is not in the catalog`);
      },
    };

    it("has a probe for every authenticated operation", () => {
      const missing = authenticatedOperations.map((op) => op.id).filter((id) => !(id in probes));
      assert.deepEqual(missing, [], "add a foreign-id probe for each new operation");
    });

    for (const op of authenticatedOperations) {
      it(`answer 404 through ${op.id}`, async () => {
        await probes[op.id]!();
      });
    }
  });

  describe("the project allow-list", () => {
    let restricted: ApiClient;
    before(async () => {
      const minted = await tokenFor(teamA, ["activity:read", "token:view-any", "token:create", "team:view"], [teamA.projectIds[0]!]);
      restricted = new ApiClient(api.url, minted.token);
    });

    it("hides the activity of projects outside it (404 RESOURCE_NOT_FOUND) and of the team", async () => {
      assert.equal((await restricted.get(`/v1/activity?subject_type=project&subject_id=${teamA.projectIds[0]}`)).status, 200);
      expectError(await restricted.get(`/v1/activity?subject_type=project&subject_id=${teamA.projectIds[1]}`), 404, "RESOURCE_NOT_FOUND");
      expectError(await restricted.get(`/v1/activity?subject_type=team&subject_id=${teamA.teamId}`), 404, "RESOURCE_NOT_FOUND");
    });

    it("refuses to mint for projects outside it (404 TENANT_MISMATCH) and passes itself on", async () => {
      const outside = await restricted.post("/v1/tokens", { name: "wider", abilities: ["team:view"], project_ids: [teamA.projectIds[1]] });
      expectError(outside, 404, "TENANT_MISMATCH");
      const inherited = await restricted.post("/v1/tokens", { name: "inherits", abilities: ["team:view"] });
      assert.equal(inherited.status, 201);
      assert.deepEqual(inherited.body.data.scopes, [`scope:team:${teamA.teamId}`, `scope:project:${teamA.projectIds[0]}`]);
    });

    it("lists only tokens restricted to projects inside it", async () => {
      const ids = (await restricted.get("/v1/tokens?per_page=100")).body.data.map((t: { scopes: string[] }) => t.scopes);
      assert.ok(ids.length >= 1);
      for (const scopes of ids) assert.deepEqual(scopes.slice(1), [`scope:project:${teamA.projectIds[0]}`]);
    });

    it("refuses a project path parameter outside it before the handler (authorizeOperation)", () => {
      const op = { id: "x", ability: "project:view", pathParams: ["project"] } as unknown as OperationSpec;
      const principal: Principal = {
        credentialKind: "personal_access_token",
        credentialId: "1",
        userId: teamA.userId,
        teamId: teamA.teamId,
        abilities: new Set(["project:view"]),
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
