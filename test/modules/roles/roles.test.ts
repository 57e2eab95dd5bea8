// The Roles area: the built-in admin and member, custom roles (Growth), what deleting one does to
// its holders, and the events and activity entries every change writes. How a role bounds its
// holders' tokens: role-grants.test.ts.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { ApiClient, expectError } from "../../helpers/http.ts";
import {
  createTestCreator,
  joinTeamWithToken,
  uniqueEmail,
  type TestCreator,
  downgradedTeamWith,
  expectGrowthRequired,
} from "../../helpers/fixtures.ts";
import type { RunningApi } from "../../helpers/server.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { CallerFactory, expectReached } from "../../tenancy/callers.ts";
import { code, patch, refused, sorted, useRolesTeam } from "./support.ts";

interface CatalogAbility {
  value: string;
  action: string;
  enforcement: string;
  grantable: boolean;
}
const catalog: CatalogAbility[] = JSON.parse(readFileSync(new URL("../../../generated/abilities.json", import.meta.url), "utf8")).abilities;
/** Every ability a role may grant: what a token can hold, except team:delete and billing:* (roles.yaml). */
const roleGrantable = catalog.filter((a) => a.grantable && a.value !== "team:delete" && !a.value.startsWith("billing:")).map((a) => a.value);

/** Everything a refused roles call must leave alone on a team. */
async function snapshot(teamId: string) {
  const { db } = await testDatabase();
  return {
    roles: await db("roles").where({ team_id: teamId }).orderBy("id").select("id", "code", "name", "abilities", "built_in", "updated_at"),
    members: await db("team_members").where({ team_id: teamId }).orderBy("user_id").select("user_id", "role_id"),
    invitations: await db("team_invitations").where({ team_id: teamId }).orderBy("id").select("id", "role_id", "status"),
    // MCP records every tool call, refused ones included (tool_invoked): that is not the change.
    activity: (await db("activity_log").where({ team_id: teamId }).whereNot({ event: "tool_invoked" }).count({ n: "*" }).first())!.n,
    events: (await eventsOf(teamId)).length,
  };
}

/** The team's activity entries of `event` about the role `roleId`. */
async function activityAbout(teamId: string, event: string, roleId: string) {
  const { db } = await testDatabase();
  const rows = (await db("activity_log").where({ team_id: teamId, event }).select("*")) as { properties: any; subject_type: string }[];
  return rows.filter((r) => r.properties?.role?.id === roleId);
}

describe("roles", () => {
  const team = useRolesTeam();
  let api: RunningApi;
  let callers: CallerFactory;
  let owner: TestCreator;
  let client: ApiClient;
  before(() => ({ api, callers, owner, client } = team));
  const createRole = (abilities: string[], name?: string, as?: ApiClient) => team.createRole(abilities, name, as);

  describe("reading and writing", () => {
    it("lists the built-in admin and member with what the catalog gives them, sorted, and the custom roles newest first", async () => {
      const custom = await createRole(["team:view", "activity:read"]);
      const res = await client.get("/v1/roles?per_page=100");
      assert.equal(res.status, 200);
      const roles = res.body.data as { id: string; code: string; built_in: boolean; abilities: string[] }[];
      assert.equal(res.body.meta.total, roles.length);
      const admin = roles.find((r) => r.code === "admin");
      const member = roles.find((r) => r.code === "member");
      assert.ok(admin && member, `both built-in roles are listed: ${roles.map((r) => r.code).join(", ")}`);
      assert.equal(admin.built_in, true);
      assert.equal(member.built_in, true);
      // admin: every ability a role can grant (team:delete and billing:* stay the owner's).
      assert.deepEqual(admin.abilities, sorted(roleGrantable));
      // member: reads everything, and manages their own tokens; nothing else.
      const memberExpected = roleGrantable.filter((a) => /:(view-any|view|read)$/.test(a) || a === "token:create" || a === "token:delete");
      assert.deepEqual(member.abilities, sorted(memberExpected));
      for (const role of roles) assert.deepEqual(role.abilities, sorted(role.abilities), `${role.code}'s abilities are sorted`);
      const listed = roles.find((r) => r.id === custom.id);
      assert.deepEqual(listed, custom, "the custom role is listed as it was created");
      assert.equal(listed!.built_in, false);
      // Newest first by default: the custom role precedes the built-in ones made with the team.
      const position = (id: string) => roles.findIndex((r) => r.id === id);
      assert.ok(position(custom.id) < position(admin.id) && position(custom.id) < position(member.id), "newest first");
    });

    it("gets one role, and answers 404 for an id the team does not have", async () => {
      const custom = await createRole(["team:view"]);
      const res = await client.get(`/v1/roles/${custom.id}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data, custom);
      expectError(await client.get(`/v1/roles/${crypto.randomUUID()}`), 404, "RESOURCE_NOT_FOUND");
      const other = await createTestCreator({ label: "roles-other" });
      const ofOther = await createRole(["team:view"], "Other's", new ApiClient(api.url, other.token));
      expectError(await client.get(`/v1/roles/${ofOther.id}`), 404, "RESOURCE_NOT_FOUND");
    });

    it("creates a custom role (201) granting what it lists, sorted", async () => {
      const roleCode = code();
      const res = await client.post("/v1/roles", {
        code: roleCode,
        name: "Support",
        abilities: ["support-conversation:view-any", "support-conversation:update"],
      });
      assert.equal(res.status, 201);
      const role = res.body.data;
      assert.equal(role.code, roleCode);
      assert.equal(role.name, "Support");
      assert.equal(role.built_in, false);
      assert.deepEqual(role.abilities, ["support-conversation:update", "support-conversation:view-any"]);
      assert.equal(role.created_at, role.updated_at);
      const { db } = await testDatabase();
      const row = await db("roles").where({ id: role.id }).first();
      assert.equal(row.team_id, owner.teamId);
    });

    it("refuses a code the team already uses (422 naming code), a built-in one included", async () => {
      const existing = await createRole(["team:view"]);
      for (const taken of [existing.code, "admin", "member"]) {
        const before = await snapshot(owner.teamId);
        const error = expectError(await client.post("/v1/roles", { code: taken, name: "Again", abilities: ["team:view"] }), 422, "VALIDATION_FAILED");
        assert.deepEqual(Object.keys(error.fields), ["code"], taken);
        assert.deepEqual(await snapshot(owner.teamId), before, `nothing written for ${taken}`);
      }
    });

    it("refuses abilities a role cannot grant (422 naming abilities): team:delete, billing:*, retired, unknown", async () => {
      for (const [ability, field] of [
        ["team:delete", "abilities"],
        ["billing:manage", "abilities"],
        ["billing:read", "abilities"],
        ["webhook-endpoint:manage", "abilities"],
        ["mcp:full", "abilities"],
      ] as const) {
        const before = await snapshot(owner.teamId);
        const res = await client.post("/v1/roles", { code: code(), name: "Too much", abilities: ["team:view", ability] });
        const error = expectError(res, 422, "VALIDATION_FAILED");
        const keys = Object.keys(error.fields);
        assert.ok(
          keys.length > 0 && keys.every((k) => k === field || k.startsWith(`${field}.`)),
          `${ability}: fields ${JSON.stringify(error.fields)}`,
        );
        assert.match(JSON.stringify(error.fields), new RegExp(ability.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")), `${ability} is named`);
        assert.deepEqual(await snapshot(owner.teamId), before, `nothing written for ${ability}`);
      }
    });

    it("changes a custom role's name and abilities (200), and only what was sent", async () => {
      const role = await createRole(["team:view"], "Before");
      const renamed = await patch(client, `/v1/roles/${role.id}`, { name: "After" });
      assert.equal(renamed.status, 200);
      assert.equal(renamed.body.data.name, "After");
      assert.deepEqual(renamed.body.data.abilities, ["team:view"]);
      const regranted = await patch(client, `/v1/roles/${role.id}`, { abilities: ["token:view-any", "activity:read", "team:view"] });
      assert.equal(regranted.status, 200);
      assert.equal(regranted.body.data.name, "After");
      assert.deepEqual(regranted.body.data.abilities, ["activity:read", "team:view", "token:view-any"]);
      assert.equal(regranted.body.data.created_at, role.created_at);
      assert.deepEqual((await client.get(`/v1/roles/${role.id}`)).body.data, regranted.body.data);
      const before = await snapshot(owner.teamId);
      const error = expectError(await patch(client, `/v1/roles/${role.id}`, { abilities: ["team:delete"] }), 422, "VALIDATION_FAILED");
      assert.ok(Object.keys(error.fields).every((k) => k.startsWith("abilities")));
      expectError(await patch(client, `/v1/roles/${role.id}`, {}), 422, "VALIDATION_FAILED");
      assert.deepEqual(await snapshot(owner.teamId), before);
      expectError(await patch(client, `/v1/roles/${crypto.randomUUID()}`, { name: "Ghost" }), 404, "RESOURCE_NOT_FOUND");
    });

    it("deletes a custom role (204); it is gone", async () => {
      const role = await createRole(["team:view"]);
      const res = await client.delete(`/v1/roles/${role.id}`);
      assert.equal(res.status, 204);
      expectError(await client.get(`/v1/roles/${role.id}`), 404, "RESOURCE_NOT_FOUND");
      const ids = (await client.get("/v1/roles?per_page=100")).body.data.map((r: { id: string }) => r.id);
      assert.ok(!ids.includes(role.id));
      expectError(await client.delete(`/v1/roles/${role.id}`), 404, "RESOURCE_NOT_FOUND");
    });

    it("never changes or deletes a built-in role (422 VALIDATION_FAILED without fields)", async () => {
      const roles = (await client.get("/v1/roles?per_page=100")).body.data as { id: string; code: string }[];
      for (const builtIn of roles.filter((r) => r.code === "admin" || r.code === "member")) {
        const before = await snapshot(owner.teamId);
        for (const res of [
          await patch(client, `/v1/roles/${builtIn.id}`, { name: "Renamed" }),
          await patch(client, `/v1/roles/${builtIn.id}`, { abilities: ["team:view"] }),
          await client.delete(`/v1/roles/${builtIn.id}`),
        ]) {
          const error = expectError(res, 422, "VALIDATION_FAILED");
          assert.equal(error.fields, undefined, `no fields: ${JSON.stringify(error)}`);
        }
        assert.deepEqual(await snapshot(owner.teamId), before, `${builtIn.code} is unchanged`);
        const after = (await client.get(`/v1/roles/${builtIn.id}`)).body.data;
        assert.equal(after.code, builtIn.code);
        assert.equal(after.built_in, true);
      }
    });
  });

  describe("Growth gating", () => {
    for (const tier of ["free", "starter"] as const) {
      it(`a ${tier} team: 403 TEAM_TIER_REQUIRED on create, update and delete, nothing written; reads still work`, async () => {
        const { creator, kept } = await downgradedTeamWith("roles", tier, () => ({
          code: code(),
          name: "Kept",
          abilities: JSON.stringify(["team:view"]),
          built_in: false,
        }));
        const as = new ApiClient(api.url, creator.token);
        const before = await snapshot(creator.teamId);
        for (const res of [
          await as.post("/v1/roles", { code: code(), name: "Gated", abilities: ["team:view"] }),
          await patch(as, `/v1/roles/${kept.id}`, { name: "Renamed" }),
          await patch(as, `/v1/roles/${kept.id}`, { abilities: ["team:view", "activity:read"] }),
          await as.delete(`/v1/roles/${kept.id}`),
        ])
          expectGrowthRequired(res, tier);
        assert.deepEqual(await snapshot(creator.teamId), before, "no role row, activity entry or event was written");
        const listed = await as.get("/v1/roles?per_page=100");
        assert.equal(listed.status, 200);
        assert.deepEqual(sorted(listed.body.data.map((r: { code: string }) => r.code)), sorted(["admin", "member", kept.code]));
        const read = await as.get(`/v1/roles/${kept.id}`);
        assert.equal(read.status, 200);
        assert.deepEqual(read.body.data.abilities, ["team:view"]);
      });
    }

    it("over MCP too: create_role on a free team is refused with TEAM_TIER_REQUIRED, list_roles works", async () => {
      const creator = await createTestCreator({ tier: "free", label: "roles-free-mcp" });
      const caller = await callers.caller("mcp", creator.token, "free owner");
      const before = await snapshot(creator.teamId);
      refused(await caller.call("create_role", { body: { code: code(), name: "Gated", abilities: ["team:view"] } }), "TEAM_TIER_REQUIRED");
      assert.deepEqual(await snapshot(creator.teamId), before);
      const { db } = await testDatabase();
      const invocations = await db("activity_log").where({ team_id: creator.teamId, event: "tool_invoked" }).select("properties");
      assert.deepEqual(
        invocations.map((r: { properties: any }) => [r.properties.tool, r.properties.outcome]),
        [["create_role", "TEAM_TIER_REQUIRED"]],
      );
      assert.ok(expectReached(await caller.call("list_roles", { query: { per_page: 100 } })).data.length >= 2);
    });
  });

  describe("deleting a custom role", () => {
    it("moves its holders and its pending invitations to member at once", async () => {
      const role = await createRole(["team:view", "team:update", "team-member:view-any"], "Helpers");
      const holder = await createTestCreator({ label: "roles-holder" });
      const holderToken = await joinTeamWithToken(owner, holder, ["team:view", "team:update", "team-member:view-any"], role.code);
      const invited = await client.post(`/v1/teams/${owner.teamId}/members`, { email: uniqueEmail("roles-invitee"), role: role.code });
      assert.equal(invited.status, 201, JSON.stringify(invited.body));
      assert.equal(invited.body.data.role, role.code);

      const roster = async () =>
        (await client.get(`/v1/teams/${owner.teamId}/members`)).body.data as { user_id: string; role: string; role_id: string }[];
      assert.equal((await roster()).find((m) => m.user_id === holder.userId)?.role, role.code);
      // The holder's token works with what the custom role grants (and is now cached).
      const asHolder = new ApiClient(api.url, holderToken.token);
      assert.equal((await patch(asHolder, `/v1/teams/${owner.teamId}`, { name: "Renamed by a helper" })).status, 200);
      assert.equal((await patch(asHolder, `/v1/teams/${owner.teamId}`, { name: "Renamed by a helper again" })).status, 200);

      assert.equal((await client.delete(`/v1/roles/${role.id}`)).status, 204);

      const memberRole = ((await client.get("/v1/roles?per_page=100")).body.data as { id: string; code: string }[]).find((r) => r.code === "member")!;
      const row = (await roster()).find((m) => m.user_id === holder.userId);
      assert.deepEqual({ role: row?.role, role_id: row?.role_id }, { role: "member", role_id: memberRole.id });
      const invitations = (await client.get(`/v1/teams/${owner.teamId}/invitations?per_page=100`)).body.data as {
        id: string;
        role: string;
        role_id: string;
      }[];
      const invitation = invitations.find((i) => i.id === invited.body.data.id);
      assert.ok(invitation, "the pending invitation is still pending");
      assert.deepEqual({ role: invitation.role, role_id: invitation.role_id }, { role: "member", role_id: memberRole.id });
      // From the holder's very next request, their token acts as member: no team:update any more.
      const error = expectError(await patch(asHolder, `/v1/teams/${owner.teamId}`, { name: "Not any more" }), 403, "TOKEN_MISSING_ABILITY");
      assert.equal(error.context?.required_ability, "team:update");
      assert.equal((await asHolder.get("/v1/teams/current")).status, 200, "what member grants still works");
      assert.equal((await asHolder.get(`/v1/teams/${owner.teamId}/members`)).status, 200);
    });
  });

  describe("events and activity", () => {
    it("role.created, role.updated and role.deleted: one events row each, valid against its webhook schema, and an activity entry", async () => {
      const team = (await client.get("/v1/teams/current")).body.data as { id: string; name: string };
      const created = await createRole(["team:view"], "Evented");
      const updated = (await patch(client, `/v1/roles/${created.id}`, { name: "Evented again", abilities: ["activity:read", "team:view"] })).body
        .data;
      assert.equal((await client.delete(`/v1/roles/${created.id}`)).status, 204);

      for (const [type, activity, role] of [
        ["role.created", "role_created", created],
        ["role.updated", "role_updated", updated],
        ["role.deleted", "role_deleted", updated],
      ] as const) {
        const events = (await eventsOf(owner.teamId, type)).filter((e) => e.data.role?.id === created.id);
        assert.equal(events.length, 1, `one ${type} event`);
        const event = events[0]!;
        assertValidEvent(event);
        assert.equal(event.type, type);
        assert.equal(event.project_id, null);
        assert.match(event.api_version, /^\d{4}-\d{2}-\d{2}$/);
        assert.deepEqual(event.data, { team: { id: team.id, name: team.name }, role }, `${type} carries the role as the API showed it`);
        const entries = await activityAbout(owner.teamId, activity, created.id);
        assert.equal(entries.length, 1, `one ${activity} activity entry`);
        assert.equal(entries[0]!.subject_type, "team");
      }
    });

    it("a refused change writes neither (422 and 404 included)", async () => {
      const role = await createRole(["team:view"]);
      const before = await snapshot(owner.teamId);
      expectError(await patch(client, `/v1/roles/${role.id}`, { abilities: ["billing:manage"] }), 422, "VALIDATION_FAILED");
      expectError(await client.post("/v1/roles", { code: role.code, name: "dup", abilities: [] }), 422, "VALIDATION_FAILED");
      expectError(await client.delete(`/v1/roles/${crypto.randomUUID()}`), 404, "RESOURCE_NOT_FOUND");
      assert.deepEqual(await snapshot(owner.teamId), before);
    });
  });
});
