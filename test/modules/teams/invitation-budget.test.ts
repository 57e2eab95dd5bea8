// The invitation budget (issue 43: 40 of 40 invitations went out): a team sends at most 20
// invitations in 24 hours and an address receives at most 3 from all teams; beyond either, 429
// RATE_LIMITED with Retry-After saying when the next one fits, and nothing is stored or mailed.
// Withdrawn invitations count (each mailed someone). Counted in the database, so it holds on both
// backends and across processes; the file runs on each (TEST_DATABASE_URL, TEST_REDIS_URL).
import assert from "node:assert/strict";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { pendingMail } from "../../../src/modules/mail/outbox.ts";
import {
  INVITATION_BUDGET_WINDOW_MS,
  INVITATIONS_PER_ADDRESS_PER_DAY,
  INVITATIONS_PER_TEAM_PER_DAY,
} from "../../../src/modules/teams/invitation-budget.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { TestClock } from "../../helpers/clock.ts";
import { createTestCreator, uniqueEmail, type TestCreator } from "../../helpers/fixtures.ts";
import { ApiClient, expectError, type TestResponse } from "../../helpers/http.ts";
import { connectMcp, startMcp } from "../../helpers/mcp.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";

describe("teams: the invitation budget", function () {
  this.timeout(60_000);
  const clock = new TestClock();
  const suite = useApiWithCreator({ api: { clock } });

  const clientOf = (creator: TestCreator) => new ApiClient(suite.api.url, creator.token);
  const invite = (creator: TestCreator, email: string) => clientOf(creator).post(`/v1/teams/${creator.teamId}/members`, { email, role: "member" });

  async function stored(email: string) {
    const { db } = await testDatabase();
    return {
      invitations: (await db("team_invitations").whereRaw("lower(email) = ?", [email])).length,
      mail: (await pendingMail(db, email)).length,
    };
  }

  /** Asserts `res` is the budget's 429, naming `reason`, with Retry-After equal to context.retry_after and at most `atMost` seconds. */
  function assertSpent(res: TestResponse, reason: string, limit: number, atMost: number): number {
    const error = expectError(res, 429, "RATE_LIMITED");
    assert.equal(error.context.reason, reason);
    assert.equal(error.context.limit, limit);
    const retryAfter = Number(res.headers.get("retry-after"));
    assert.equal(retryAfter, error.context.retry_after);
    assert.ok(retryAfter >= 1 && retryAfter <= atMost, `Retry-After ${retryAfter}, at most ${atMost}`);
    assert.match(error.message, /Nothing was sent\./);
    return retryAfter;
  }

  it(`lets a team send ${INVITATIONS_PER_TEAM_PER_DAY} invitations in 24 hours, withdrawn ones counted, then answers 429 until the first one is a day old`, async () => {
    const team = await createTestCreator({ label: "budget-team" });
    const start = clock.nowMs();
    const first = await invite(team, uniqueEmail("invitee"));
    assert.equal(first.status, 201, JSON.stringify(first.body));
    // The first one is withdrawn: it mailed someone, so it still counts.
    assert.equal((await clientOf(team).delete(`/v1/teams/${team.teamId}/invitations/${first.body.data.id}`)).status, 204);
    clock.advance(60 * 60_000);
    for (let i = 1; i < INVITATIONS_PER_TEAM_PER_DAY; i++) assert.equal((await invite(team, uniqueEmail("invitee"))).status, 201);

    const refused = uniqueEmail("refused");
    const waited = assertSpent(await invite(team, refused), "team_invitations", INVITATIONS_PER_TEAM_PER_DAY, 23 * 60 * 60);
    // The next one fits when the first (withdrawn) one is 24 hours old: 23 hours from now.
    assert.equal(waited, Math.ceil((start + INVITATION_BUDGET_WINDOW_MS - clock.nowMs()) / 1000));
    assert.deepEqual(await stored(refused), { invitations: 0, mail: 0 });
    // MCP answers the same refusal as a tool error carrying the envelope.
    const mcp = await startMcp({ clock, baseUrl: suite.api.url });
    const client = await connectMcp(mcp, team.token);
    try {
      const result = (await client.callTool({
        name: "invite_team_member",
        arguments: { team: team.teamId, email: refused, role: "member" },
      })) as CallToolResult;
      assert.equal(result.isError, true);
      const { error } = result.structuredContent as { error: { code: string; context: Record<string, unknown> } };
      assert.deepEqual([error.code, error.context.reason, error.context.retry_after], ["RATE_LIMITED", "team_invitations", waited]);
    } finally {
      await client.close();
      await mcp.close();
    }
    assert.deepEqual(await stored(refused), { invitations: 0, mail: 0 });
    // Another team is not held back by this one's budget.
    assert.equal((await invite(suite.creator, uniqueEmail("elsewhere"))).status, 201);

    clock.advance(waited * 1000 - 1_000);
    assertSpent(await invite(team, refused), "team_invitations", INVITATIONS_PER_TEAM_PER_DAY, 1);
    clock.advance(1_000);
    assert.equal((await invite(team, refused)).status, 201);
    assert.deepEqual(await stored(refused), { invitations: 1, mail: 1 });
  });

  it(`lets an address receive ${INVITATIONS_PER_ADDRESS_PER_DAY} invitations in 24 hours from all teams together`, async () => {
    const address = uniqueEmail("popular");
    const teams = await Promise.all([1, 2, 3, 4].map(() => createTestCreator({ label: "budget-address" })));
    // The same team inviting again after a withdrawal, and two other teams: three invitations.
    const once = await invite(teams[0]!, address);
    assert.equal(once.status, 201);
    assert.equal((await clientOf(teams[0]!).delete(`/v1/teams/${teams[0]!.teamId}/invitations/${once.body.data.id}`)).status, 204);
    assert.equal((await invite(teams[0]!, address.toUpperCase())).status, 201);
    assert.equal((await invite(teams[1]!, address)).status, 201);
    clock.advance(10 * 60_000);

    for (const team of [teams[2]!, teams[3]!])
      assertSpent(await invite(team, address), "address_invitations", INVITATIONS_PER_ADDRESS_PER_DAY, 24 * 60 * 60);
    assert.deepEqual(await stored(address), { invitations: 3, mail: 3 });
    // Other addresses are not held back.
    assert.equal((await invite(teams[2]!, uniqueEmail("other"))).status, 201);

    clock.advance(INVITATION_BUDGET_WINDOW_MS - 10 * 60_000);
    assert.equal((await invite(teams[2]!, address)).status, 201);
  });

  it("holds under concurrent invitations: with two places left, two of six go out", async () => {
    const team = await createTestCreator({ label: "budget-race" });
    for (let i = 0; i < INVITATIONS_PER_TEAM_PER_DAY - 2; i++) assert.equal((await invite(team, uniqueEmail("invitee"))).status, 201);
    const answers = await Promise.all([1, 2, 3, 4, 5, 6].map(() => invite(team, uniqueEmail("racer"))));
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, 201, 429, 429, 429, 429], JSON.stringify(answers.map((a) => a.body)));
    const { db } = await testDatabase();
    assert.equal((await db("team_invitations").where({ team_id: team.teamId })).length, INVITATIONS_PER_TEAM_PER_DAY);

    // One address invited by three teams at once, with no invitation yet: three go out; then a fourth team is refused.
    const address = uniqueEmail("raced");
    const teams = await Promise.all([1, 2, 3, 4, 5].map(() => createTestCreator({ label: "budget-race-address" })));
    const raced = await Promise.all(teams.map((t) => invite(t, address)));
    assert.deepEqual(raced.map((a) => a.status).sort(), [201, 201, 201, 429, 429]);
    assert.equal((await stored(address)).invitations, INVITATIONS_PER_ADDRESS_PER_DAY);
  });
});
