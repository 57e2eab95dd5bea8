// Every row of the description's Refusals table (Teams and team members), over REST and over MCP,
// each with a check that nothing changed.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createTestCreator, joinTeamWithToken, uniqueEmail, type TestCreator } from "../../helpers/fixtures.ts";
import { startApi, type RunningApi } from "../../helpers/server.ts";
import { startMcp, type RunningMcp } from "../../helpers/mcp.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { eventsOf } from "../../helpers/events.ts";
import { CallerFactory, expectReached } from "../../tenancy/callers.ts";
import type { CallResult, Transport } from "../../tenancy/types.ts";

function refused(result: CallResult, status: number, code: string): void {
  assert.equal(result.ok, false, `${result.request} answered a success: ${JSON.stringify(result.body).slice(0, 300)}`);
  if (result.ok) return;
  assert.equal(result.code, code, `${result.request}: expected ${code}, got ${result.code} ${JSON.stringify(result.body).slice(0, 300)}`);
  if (result.status !== null) assert.equal(result.status, status);
}

describe("teams: the Refusals table", () => {
  let api: RunningApi;
  let mcp: RunningMcp;
  let callers: CallerFactory;
  let owner: TestCreator;
  let member: TestCreator;
  let freeOwner: TestCreator;
  let freeMember: TestCreator;
  before(async () => {
    api = await startApi();
    mcp = await startMcp({ baseUrl: api.url });
    callers = new CallerFactory(api.url, mcp);
    owner = await createTestCreator({ label: "owner" });
    member = await createTestCreator({ label: "member" });
    await joinTeamWithToken(owner, member, ["team:view"], "admin");
    freeOwner = await createTestCreator({ label: "free-owner", tier: "free" });
    freeMember = await createTestCreator({ label: "free-member" });
    await joinTeamWithToken(freeOwner, freeMember, ["team:view"], "member");
  });
  after(async () => {
    await callers?.close();
    await mcp?.close();
    await api?.close();
  });

  /** What a refusal must leave untouched: the team's memberships, invitations and events. */
  async function snapshot(teamId: string) {
    const { db } = await testDatabase();
    return {
      members: await db("team_members").where({ team_id: teamId }).orderBy("user_id").select("user_id", "role_id"),
      invitations: await db("team_invitations").where({ team_id: teamId }).orderBy("id").select("id", "status"),
      events: (await eventsOf(teamId)).length,
    };
  }

  for (const transport of ["rest", "mcp"] as Transport[]) {
    describe(`over ${transport.toUpperCase()}`, () => {
      const as = (creator: TestCreator) => callers.caller(transport, creator.token, creator.email);

      it("re-role or remove the owner: 404 RESOURCE_NOT_FOUND", async () => {
        const before = await snapshot(owner.teamId);
        const path = { team: owner.teamId, member: owner.userId };
        refused(await (await as(owner)).call("update_team_member_role", { path, body: { role: "member" } }), 404, "RESOURCE_NOT_FOUND");
        refused(await (await as(owner)).call("remove_team_member", { path }), 404, "RESOURCE_NOT_FOUND");
        assert.deepEqual(await snapshot(owner.teamId), before);
      });

      it("invite someone already in the team (a member, the owner, a pending invitee): 422 VALIDATION_FAILED", async () => {
        const caller = await as(owner);
        const invitee = uniqueEmail("pending");
        expectReached(await caller.call("invite_team_member", { path: { team: owner.teamId }, body: { email: invitee, role: "member" } }));
        const before = await snapshot(owner.teamId);
        for (const email of [member.email, owner.email, invitee, invitee.toUpperCase()]) {
          const result = await caller.call("invite_team_member", { path: { team: owner.teamId }, body: { email, role: "member" } });
          refused(result, 422, "VALIDATION_FAILED");
          assert.deepEqual(Object.keys(result.body.error.fields), ["email"], `${email} is refused naming the email field`);
        }
        assert.deepEqual(await snapshot(owner.teamId), before);
      });

      it("a role code the team does not have: 422 VALIDATION_FAILED naming role", async () => {
        const caller = await as(owner);
        const before = await snapshot(owner.teamId);
        for (const result of [
          await caller.call("invite_team_member", { path: { team: owner.teamId }, body: { email: uniqueEmail(), role: "wizard" } }),
          await caller.call("update_team_member_role", { path: { team: owner.teamId, member: member.userId }, body: { role: "wizard" } }),
        ]) {
          refused(result, 422, "VALIDATION_FAILED");
          assert.deepEqual(result.body.error.fields, { role: ["the team has no role wizard"] });
        }
        assert.deepEqual(await snapshot(owner.teamId), before);
      });

      it("address a user who is not in the team: 404", async () => {
        const stranger = await createTestCreator({ label: "stranger" });
        const caller = await as(owner);
        for (const id of [stranger.userId, randomUUID()]) {
          refused(await caller.call("remove_team_member", { path: { team: owner.teamId, member: id } }), 404, "RESOURCE_NOT_FOUND");
          refused(
            await caller.call("update_team_member_role", { path: { team: owner.teamId, member: id }, body: { role: "member" } }),
            404,
            "RESOURCE_NOT_FOUND",
          );
        }
        if (transport === "rest")
          refused(await caller.call("get_team_member", { path: { team: owner.teamId, member: stranger.userId } }), 404, "RESOURCE_NOT_FOUND");
      });

      it("invite or re-role below the Growth tier: 403 TEAM_TIER_REQUIRED, nothing changes", async () => {
        const caller = await as(freeOwner);
        const before = await snapshot(freeOwner.teamId);
        const invite = await caller.call("invite_team_member", { path: { team: freeOwner.teamId }, body: { email: uniqueEmail(), role: "member" } });
        refused(invite, 403, "TEAM_TIER_REQUIRED");
        const rerole = await caller.call("update_team_member_role", {
          path: { team: freeOwner.teamId, member: freeMember.userId },
          body: { role: "admin" },
        });
        refused(rerole, 403, "TEAM_TIER_REQUIRED");
        assert.deepEqual(await snapshot(freeOwner.teamId), before);
        const { db } = await testDatabase();
        assert.equal((await db("mail_outbox").where({ to_address: freeMember.email })).length, 0);
      });

      it("address a team the caller cannot see: 404 on every team route", async () => {
        const other = await createTestCreator({ label: "other" });
        const caller = await as(owner);
        const team = other.teamId;
        refused(await caller.call("list_team_members", { path: { team } }), 404, "RESOURCE_NOT_FOUND");
        refused(
          await caller.call("invite_team_member", { path: { team }, body: { email: uniqueEmail(), role: "member" } }),
          404,
          "RESOURCE_NOT_FOUND",
        );
        refused(await caller.call("remove_team_member", { path: { team, member: other.userId } }), 404, "RESOURCE_NOT_FOUND");
        refused(
          await caller.call("update_team_member_role", { path: { team, member: other.userId }, body: { role: "member" } }),
          404,
          "RESOURCE_NOT_FOUND",
        );
      });

      it("member removal on an invitee, and invitation withdrawal on a member: 404", async () => {
        const caller = await as(owner);
        const invitation = expectReached(
          await caller.call("invite_team_member", { path: { team: owner.teamId }, body: { email: uniqueEmail(), role: "member" } }),
        ).data;
        const before = await snapshot(owner.teamId);
        refused(await caller.call("remove_team_member", { path: { team: owner.teamId, member: invitation.id } }), 404, "RESOURCE_NOT_FOUND");
        refused(
          await caller.call("withdraw_team_invitation", { path: { team: owner.teamId, invitation: member.userId } }),
          404,
          "RESOURCE_NOT_FOUND",
        );
        assert.deepEqual(await snapshot(owner.teamId), before);
      });
    });
  }

  it("removing a member is not tier-gated", async () => {
    const free = await createTestCreator({ label: "free", tier: "free" });
    const someone = await createTestCreator({ label: "someone" });
    await joinTeamWithToken(free, someone, ["team:view"], "member");
    const caller = await callers.caller("rest", free.token, "free owner");
    expectReached(await caller.call("remove_team_member", { path: { team: free.teamId, member: someone.userId } }));
  });
});
