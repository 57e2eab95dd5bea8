// The Groups area: CRUD with its validation (projects of the team inside the token's allow-list,
// members of the team, unique codes), Growth gating, events and activity; and what a group grants:
// its abilities on its projects to its members, bounded by what their tokens carry (through the
// domain and the pipeline's admission and authorization, as no project-scoped route exists yet).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { ApiClient, expectError, type TestResponse } from "../../helpers/http.ts";
import { createTestCreator, joinTeamWithToken, tokenFor, type TestCreator } from "../../helpers/fixtures.ts";
import { startApi, type RunningApi } from "../../helpers/server.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import type { OperationSpec } from "../../../generated/operations.ts";
import { createDomainContext } from "../../../src/db/tenant.ts";
import { ApiError } from "../../../src/errors.ts";
import { admitBearer } from "../../../src/pipeline/authenticate.ts";
import { authorizeOperation } from "../../../src/pipeline/authorize.ts";
import type { Principal } from "../../../src/pipeline/context.ts";
import { REST_BUDGET } from "../../../src/pipeline/rate-limit.ts";
import { lookupToken, mintToken, parseBearer, verifyToken, type ResolvedToken } from "../../../src/modules/tokens/tokens.ts";

const code = () => `group-${randomBytes(4).toString("hex")}`;
const sorted = (list: readonly string[]) => [...list].sort();

interface Group {
  id: string;
  code: string;
  name: string;
  abilities: string[];
  project_ids: string[];
  member_ids: string[];
  created_at: string;
  updated_at: string;
}

function patch(client: ApiClient, path: string, body: unknown): Promise<TestResponse> {
  return client.request("PATCH", path, { body });
}

/** Everything a refused groups call must leave alone on a team. */
async function snapshot(teamId: string) {
  const { db } = await testDatabase();
  return {
    groups: await db("groups")
      .where({ team_id: teamId })
      .orderBy("id")
      .select("id", "code", "name", "abilities", "project_ids", "member_user_ids", "updated_at"),
    activity: (await db("activity_log").where({ team_id: teamId }).whereNot({ event: "tool_invoked" }).count({ n: "*" }).first())!.n,
    events: (await eventsOf(teamId)).length,
  };
}

/** A fake project-scoped operation requiring `ability` (none exists in the table yet). */
function projectOperation(ability: string): OperationSpec {
  return { id: "fake_project_operation", ability, pathParams: ["project"] } as unknown as OperationSpec;
}

function principalOf(token: ResolvedToken): Principal {
  return {
    credentialKind: "personal_access_token",
    credentialId: token.tokenId,
    userId: token.userId,
    teamId: token.teamId,
    abilities: token.abilities,
    projectAbilities: token.projectAbilities,
    projectIds: token.projectIds,
  };
}

/** What the token resolves to, straight from the database (lookupToken + verifyToken). */
async function resolve(token: string): Promise<ResolvedToken> {
  const { db } = await testDatabase();
  const parsed = parseBearer(token)!;
  const record = await lookupToken(db, parsed.id, new Date());
  assert.ok(record, "the token exists");
  const resolved = verifyToken(record, parsed.secret, new Date());
  assert.ok(resolved, "the secret matches");
  return resolved;
}

function authorizes(principal: Principal, ability: string, project: string): void {
  authorizeOperation(projectOperation(ability), principal, { project });
}

function refusesWith(principal: Principal, ability: string, project: string | undefined, code: string): ApiError {
  let caught: unknown;
  try {
    authorizeOperation(projectOperation(ability), principal, project === undefined ? {} : { project });
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof ApiError, `${ability} on ${project ?? "no project"} is refused (got ${String(caught)})`);
  assert.equal(caught.code, code, `${ability} on ${project ?? "no project"}: ${caught.message}`);
  return caught;
}

const projectMap = (resolved: { projectAbilities: ReadonlyMap<string, ReadonlySet<string>> }) =>
  Object.fromEntries([...resolved.projectAbilities].map(([project, abilities]) => [project, sorted([...abilities])]));

describe("groups", () => {
  let api: RunningApi;
  let owner: TestCreator;
  let client: ApiClient;
  let member: TestCreator;
  let stranger: TestCreator;
  let p1: string;
  let p2: string;
  before(async () => {
    api = await startApi();
    owner = await createTestCreator({ label: "groups-owner", projects: 2 });
    [p1, p2] = owner.projectIds as [string, string];
    client = new ApiClient(api.url, owner.token);
    member = await createTestCreator({ label: "groups-member" });
    await joinTeamWithToken(owner, member, ["team:view"], "member");
    stranger = await createTestCreator({ label: "groups-stranger" });
  });
  after(() => api?.close());

  async function createGroup(fields: Partial<Omit<Group, "id">> = {}, as = client): Promise<Group> {
    const res = await as.post("/v1/groups", {
      code: code(),
      name: "A group",
      abilities: ["project:update"],
      project_ids: [p1],
      member_ids: [member.userId],
      ...fields,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data as Group;
  }

  describe("a token restricted to projects", () => {
    it("neither sees nor changes a group that reaches a project outside its allow-list", async () => {
      const wide = await createGroup({ project_ids: [p1, p2] });
      const narrow = await createGroup({ project_ids: [p1] });
      const restricted = new ApiClient(
        api.url,
        (await tokenFor(owner, ["group:view-any", "group:view", "group:update", "group:delete"], [p1])).token,
      );
      const listed = (await restricted.get("/v1/groups?per_page=100")).body.data.map((g: Group) => g.id);
      assert.ok(listed.includes(narrow.id) && !listed.includes(wide.id));
      expectError(await restricted.get(`/v1/groups/${wide.id}`), 404, "RESOURCE_NOT_FOUND");
      expectError(await restricted.request("PATCH", `/v1/groups/${wide.id}`, { body: { abilities: ["project:delete"] } }), 404, "RESOURCE_NOT_FOUND");
      expectError(await restricted.delete(`/v1/groups/${wide.id}`), 404, "RESOURCE_NOT_FOUND");
      assert.deepEqual((await client.get(`/v1/groups/${wide.id}`)).body.data.abilities, ["project:update"], "untouched");
      assert.equal((await restricted.get(`/v1/groups/${narrow.id}`)).status, 200);
    });
  });

  describe("reading and writing", () => {
    it("creates (201), gets, lists, changes (200) and deletes (204) a group", async () => {
      const groupCode = code();
      const created = await client.post("/v1/groups", {
        code: groupCode,
        name: "Launch crew",
        abilities: ["project-subscription-plan:update", "project:update"],
        project_ids: [p2, p1],
        member_ids: [member.userId],
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const group = created.body.data as Group;
      assert.equal(group.code, groupCode);
      assert.equal(group.name, "Launch crew");
      assert.deepEqual(group.abilities, ["project-subscription-plan:update", "project:update"]);
      assert.deepEqual(sorted(group.project_ids), sorted([p1, p2]));
      assert.deepEqual(group.member_ids, [member.userId]);

      assert.deepEqual((await client.get(`/v1/groups/${group.id}`)).body.data, group);
      const listed = (await client.get("/v1/groups?per_page=100")).body.data as Group[];
      assert.deepEqual(
        listed.find((g) => g.id === group.id),
        group,
      );

      const renamed = await patch(client, `/v1/groups/${group.id}`, { name: "Launch crew 2" });
      assert.equal(renamed.status, 200);
      assert.deepEqual({ ...renamed.body.data, updated_at: group.updated_at }, { ...group, name: "Launch crew 2" }, "only the name changed");
      const changed = await patch(client, `/v1/groups/${group.id}`, { abilities: ["project-resource:create"], project_ids: [p2], member_ids: [] });
      assert.equal(changed.status, 200);
      assert.deepEqual(changed.body.data.abilities, ["project-resource:create"]);
      assert.deepEqual(changed.body.data.project_ids, [p2]);
      assert.deepEqual(changed.body.data.member_ids, []);
      assert.equal(changed.body.data.name, "Launch crew 2");
      assert.deepEqual((await client.get(`/v1/groups/${group.id}`)).body.data, changed.body.data);

      assert.equal((await client.delete(`/v1/groups/${group.id}`)).status, 204);
      expectError(await client.get(`/v1/groups/${group.id}`), 404, "RESOURCE_NOT_FOUND");
      expectError(await client.delete(`/v1/groups/${group.id}`), 404, "RESOURCE_NOT_FOUND");
      expectError(await patch(client, `/v1/groups/${group.id}`, { name: "Ghost" }), 404, "RESOURCE_NOT_FOUND");
    });

    it("refuses a project that is not the team's (404 RESOURCE_NOT_FOUND), nothing written", async () => {
      const group = await createGroup();
      for (const project of [stranger.projectIds[0]!, crypto.randomUUID()]) {
        const before = await snapshot(owner.teamId);
        expectError(
          await client.post("/v1/groups", { code: code(), name: "x", abilities: ["project:update"], project_ids: [p1, project], member_ids: [] }),
          404,
          "RESOURCE_NOT_FOUND",
        );
        expectError(await patch(client, `/v1/groups/${group.id}`, { project_ids: [project] }), 404, "RESOURCE_NOT_FOUND");
        assert.deepEqual(await snapshot(owner.teamId), before);
      }
    });

    it("refuses a project outside the token's allow-list (404 TENANT_MISMATCH), nothing written", async () => {
      const restricted = new ApiClient(api.url, (await tokenFor(owner, ["group:create", "group:update", "group:view"], [p1])).token);
      const group = await createGroup({ project_ids: [p1] });
      const before = await snapshot(owner.teamId);
      expectError(
        await restricted.post("/v1/groups", { code: code(), name: "x", abilities: ["project:update"], project_ids: [p2], member_ids: [] }),
        404,
        "TENANT_MISMATCH",
      );
      expectError(
        await restricted.post("/v1/groups", { code: code(), name: "x", abilities: ["project:update"], project_ids: [p1, p2], member_ids: [] }),
        404,
        "TENANT_MISMATCH",
      );
      expectError(await patch(restricted, `/v1/groups/${group.id}`, { project_ids: [p1, p2] }), 404, "TENANT_MISMATCH");
      assert.deepEqual(await snapshot(owner.teamId), before);
      // Inside its allow-list the same token may.
      assert.equal(
        (await restricted.post("/v1/groups", { code: code(), name: "x", abilities: ["project:update"], project_ids: [p1], member_ids: [] })).status,
        201,
      );
    });

    it("refuses member_ids that are not members of the team (422 naming member_ids), the owner included", async () => {
      const group = await createGroup();
      for (const id of [stranger.userId, owner.userId, crypto.randomUUID()]) {
        const before = await snapshot(owner.teamId);
        for (const res of [
          await client.post("/v1/groups", {
            code: code(),
            name: "x",
            abilities: ["project:update"],
            project_ids: [p1],
            member_ids: [member.userId, id],
          }),
          await patch(client, `/v1/groups/${group.id}`, { member_ids: [id] }),
        ]) {
          const error = expectError(res, 422, "VALIDATION_FAILED");
          assert.deepEqual(Object.keys(error.fields), ["member_ids"], JSON.stringify(error.fields));
          assert.match(error.fields.member_ids.join(" "), new RegExp(id));
        }
        assert.deepEqual(await snapshot(owner.teamId), before);
      }
    });

    it("refuses a code the team already uses (422 naming code) and abilities only the owner holds (422 naming abilities)", async () => {
      const group = await createGroup();
      const before = await snapshot(owner.teamId);
      const dup = expectError(
        await client.post("/v1/groups", { code: group.code, name: "Again", abilities: [], project_ids: [], member_ids: [] }),
        422,
        "VALIDATION_FAILED",
      );
      assert.deepEqual(Object.keys(dup.fields), ["code"]);
      for (const ability of ["team:delete", "billing:manage", "billing:read", "webhook-endpoint:manage"]) {
        const error = expectError(
          await client.post("/v1/groups", { code: code(), name: "x", abilities: [ability], project_ids: [p1], member_ids: [] }),
          422,
          "VALIDATION_FAILED",
        );
        assert.ok(
          Object.keys(error.fields).every((k) => k === "abilities" || k.startsWith("abilities.")),
          `${ability}: ${JSON.stringify(error.fields)}`,
        );
      }
      assert.deepEqual(await snapshot(owner.teamId), before);
      // Another team may use the same code.
      const other = await createTestCreator({ label: "groups-other" });
      assert.equal(
        (
          await new ApiClient(api.url, other.token).post("/v1/groups", {
            code: group.code,
            name: "Theirs",
            abilities: [],
            project_ids: [],
            member_ids: [],
          })
        ).status,
        201,
      );
    });
  });

  describe("Growth gating", () => {
    for (const tier of ["free", "starter"] as const) {
      it(`a ${tier} team: 403 TEAM_TIER_REQUIRED on create, update and delete, nothing written; reads still work`, async () => {
        const creator = await createTestCreator({ tier, label: `groups-${tier}` });
        const as = new ApiClient(api.url, creator.token);
        const { db } = await testDatabase();
        // A group made while the owner was on Growth (a downgrade keeps it).
        const kept = {
          id: crypto.randomUUID(),
          team_id: creator.teamId,
          code: code(),
          name: "Kept",
          abilities: JSON.stringify(["project:update"]),
          project_ids: JSON.stringify([creator.projectIds[0]]),
          member_user_ids: JSON.stringify([]),
          created_at: new Date(),
          updated_at: new Date(),
        };
        await db("groups").insert(kept);
        const before = await snapshot(creator.teamId);
        for (const res of [
          await as.post("/v1/groups", {
            code: code(),
            name: "Gated",
            abilities: ["project:update"],
            project_ids: [creator.projectIds[0]],
            member_ids: [],
          }),
          await patch(as, `/v1/groups/${kept.id}`, { name: "Renamed" }),
          await as.delete(`/v1/groups/${kept.id}`),
        ]) {
          const error = expectError(res, 403, "TEAM_TIER_REQUIRED");
          assert.equal(error.context?.current_tier, tier);
        }
        assert.deepEqual(await snapshot(creator.teamId), before, "no group row, activity entry or event was written");
        const listed = await as.get("/v1/groups");
        assert.equal(listed.status, 200);
        assert.deepEqual(
          listed.body.data.map((g: Group) => g.id),
          [kept.id],
        );
        assert.equal((await as.get(`/v1/groups/${kept.id}`)).status, 200);
      });
    }
  });

  describe("events and activity", () => {
    it("group.created, group.updated and group.deleted: one events row each, valid against its webhook schema, and an activity entry", async () => {
      const team = (await client.get("/v1/teams/current")).body.data as { id: string; name: string };
      const created = await createGroup({ name: "Evented" });
      const updated = (await patch(client, `/v1/groups/${created.id}`, { name: "Evented again", project_ids: [p1, p2] })).body.data as Group;
      assert.equal((await client.delete(`/v1/groups/${created.id}`)).status, 204);
      const { db } = await testDatabase();
      for (const [type, group] of [
        ["group.created", created],
        ["group.updated", updated],
        ["group.deleted", updated],
      ] as const) {
        const events = (await eventsOf(owner.teamId, type)).filter((e) => e.data.group?.id === created.id);
        assert.equal(events.length, 1, `one ${type} event`);
        const event = events[0]!;
        assertValidEvent(event);
        assert.equal(event.project_id, null);
        assert.deepEqual(event.data, { team: { id: team.id, name: team.name }, group }, `${type} carries the group as the API showed it`);
        const entries = (
          await db("activity_log")
            .where({ team_id: owner.teamId, event: type.replace(".", "_") })
            .select("properties", "subject_type")
        ).filter((r: { properties: any }) => r.properties?.group?.id === created.id);
        assert.equal(entries.length, 1, `one ${type.replace(".", "_")} activity entry`);
      }
    });
  });

  describe("what a group grants", () => {
    /** A second token of `holder` on the owner's team, restricted to `projectIds`. */
    async function memberToken(holder: TestCreator, abilities: string[], projectIds: string[] | null) {
      const { db } = await testDatabase();
      const actor = { userId: holder.userId, teamId: owner.teamId, projectIds: null, kind: "system" as const, credentialKind: null, requestId: null };
      return (
        await db.transaction((trx) => mintToken(createDomainContext(trx, actor, new Date()), { name: "group test", abilities, projectIds }, null))
      ).token;
    }

    it("its abilities on its projects, on top of the member role, never beyond what the token carries", async () => {
      const holder = await createTestCreator({ label: "groups-holder" });
      const carried = ["team:view", "project:view", "project:update", "project-resource:view-any"];
      const token = (await joinTeamWithToken(owner, holder, carried, "member")).token;
      // Before any group: the built-in member role reads, it does not update.
      const bare = await resolve(token);
      assert.deepEqual(sorted([...bare.abilities]), ["project-resource:view-any", "project:view", "team:view"]);
      assert.deepEqual(projectMap(bare), {});
      refusesWith(principalOf(bare), "project:update", p1, "TOKEN_MISSING_ABILITY");

      const group = await createGroup({ abilities: ["project:update", "project-resource:create"], project_ids: [p1], member_ids: [holder.userId] });
      const resolved = await resolve(token);
      assert.deepEqual(sorted([...resolved.abilities]), ["project-resource:view-any", "project:view", "team:view"], "team-wide: bounded by the role");
      // P1 only; project-resource:create is granted by the group but not carried by the token.
      assert.deepEqual(projectMap(resolved), { [p1]: ["project:update"] });

      const principal = principalOf(resolved);
      authorizes(principal, "project:update", p1);
      const error = refusesWith(principal, "project:update", p2, "TOKEN_MISSING_ABILITY");
      assert.deepEqual(error.context, { required_ability: "project:update" });
      assert.equal(error.status, 403);
      refusesWith(principal, "project-resource:create", p1, "TOKEN_MISSING_ABILITY");
      refusesWith(principal, "project:update", undefined, "TOKEN_MISSING_ABILITY");
      authorizes(principal, "project:view", p2);

      // What the group granted ends with the group.
      assert.equal((await client.delete(`/v1/groups/${group.id}`)).status, 204);
      assert.deepEqual(projectMap(await resolve(token)), {});
    });

    it("a group does not widen a token's project allow-list (404 TENANT_MISMATCH outside it)", async () => {
      const holder = await createTestCreator({ label: "groups-restricted" });
      await joinTeamWithToken(owner, holder, ["team:view"], "member");
      await createGroup({ abilities: ["project:update"], project_ids: [p1, p2], member_ids: [holder.userId] });
      const principal = principalOf(await resolve(await memberToken(holder, ["team:view", "project:update"], [p2])));
      authorizes(principal, "project:update", p2);
      refusesWith(principal, "project:update", p1, "TENANT_MISMATCH");
    });

    it("reaches the member's cached credential from the next request: added, changed, removed", async () => {
      const holder = await createTestCreator({ label: "groups-cached" });
      const token = (await joinTeamWithToken(owner, holder, ["team:view", "project:update", "project:delete"], "member")).token;
      const { db } = await testDatabase();
      const admit = async () => (await admitBearer(db, api.deps.kv, `Bearer ${token}`, REST_BUDGET, "rest", new Date())).principal;
      const asHolder = new ApiClient(api.url, token);
      // Resolved and cached by a real request, then read from the cache.
      assert.equal((await asHolder.get("/v1/teams/current")).status, 200);
      refusesWith(await admit(), "project:update", p1, "TOKEN_MISSING_ABILITY");
      refusesWith(await admit(), "project:update", p1, "TOKEN_MISSING_ABILITY");

      const group = await createGroup({ abilities: ["project:update"], project_ids: [p1], member_ids: [holder.userId] });
      for (let i = 0; i < 2; i++) {
        const principal = await admit();
        authorizes(principal, "project:update", p1);
        refusesWith(principal, "project:update", p2, "TOKEN_MISSING_ABILITY");
      }
      assert.equal((await patch(client, `/v1/groups/${group.id}`, { abilities: ["project:delete"] })).status, 200);
      for (let i = 0; i < 2; i++) {
        const principal = await admit();
        authorizes(principal, "project:delete", p1);
        refusesWith(principal, "project:update", p1, "TOKEN_MISSING_ABILITY");
      }
      assert.equal((await patch(client, `/v1/groups/${group.id}`, { member_ids: [] })).status, 200);
      for (let i = 0; i < 2; i++) refusesWith(await admit(), "project:delete", p1, "TOKEN_MISSING_ABILITY");
      assert.equal((await patch(client, `/v1/groups/${group.id}`, { member_ids: [holder.userId] })).status, 200);
      authorizes(await admit(), "project:delete", p1);
      assert.equal((await client.delete(`/v1/groups/${group.id}`)).status, 204);
      for (let i = 0; i < 2; i++) refusesWith(await admit(), "project:delete", p1, "TOKEN_MISSING_ABILITY");
    });

    it("ends when the member leaves the team: they are no longer among the group's members", async () => {
      const leaver = await createTestCreator({ label: "groups-leaver" });
      await joinTeamWithToken(owner, leaver, ["team:view"], "member");
      const group = await createGroup({ member_ids: [member.userId, leaver.userId] });
      assert.equal((await client.delete(`/v1/teams/${owner.teamId}/members/${leaver.userId}`)).status, 204);
      const after = (await client.get(`/v1/groups/${group.id}`)).body.data as Group;
      assert.deepEqual(after.member_ids, [member.userId], "member_ids lists the team's members only");
      // The group stays editable as read: sending its own member_ids back is not refused.
      assert.equal((await patch(client, `/v1/groups/${group.id}`, { name: "Renamed", member_ids: after.member_ids })).status, 200);
      // Joining the team again does not silently restore what the group granted.
      await joinTeamWithToken(owner, leaver, ["team:view", "project:update"], "member");
      const { db } = await testDatabase();
      const rows = await db("groups").where({ id: group.id }).first("member_user_ids");
      assert.ok(!rows.member_user_ids.includes(leaver.userId));
    });

    it("grants the owner nothing more: the owner's token acts with everything it carries", async () => {
      const ownerToken = (await tokenFor(owner, ["team:view", "project:update"])).token;
      const resolved = await resolve(ownerToken);
      assert.deepEqual(sorted([...resolved.abilities]), ["project:update", "team:view"]);
      authorizes(principalOf(resolved), "project:update", p2);
    });
  });
});
