// The Groups area: CRUD with its validation (projects of the team inside the token's allow-list,
// members of the team, unique codes), Growth gating, events and activity. What a group grants:
// group-grants.test.ts.
import assert from "node:assert/strict";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { createTestCreator, tokenFor, type TestCreator, downgradedTeamWith, expectGrowthRequired } from "../../helpers/fixtures.ts";
import type { RunningApi } from "../../helpers/server.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { code, patch, snapshot, sorted, useGroupsTeam, type Group } from "./support.ts";

describe("groups", () => {
  const team = useGroupsTeam();
  let api: RunningApi;
  let owner: TestCreator;
  let client: ApiClient;
  let member: TestCreator;
  let stranger: TestCreator;
  let p1: string;
  let p2: string;
  before(() => ({ api, owner, client, member, stranger, p1, p2 } = team));
  const createGroup = (fields: Partial<Omit<Group, "id">> = {}, as?: ApiClient) => team.createGroup(fields, as);

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
        const { creator, kept } = await downgradedTeamWith("groups", tier, (c) => ({
          code: code(),
          name: "Kept",
          abilities: JSON.stringify(["project:update"]),
          project_ids: JSON.stringify([c.projectIds[0]]),
          member_user_ids: JSON.stringify([]),
        }));
        const as = new ApiClient(api.url, creator.token);
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
        ])
          expectGrowthRequired(res, tier);
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
});
