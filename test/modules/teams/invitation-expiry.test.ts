// teams.invitations.expire: pending invitations past their date become "expired", one activity
// entry each by the system actor, per team; a second run (or a racing one) changes nothing more.
import assert from "node:assert/strict";
import { createDomainContext, systemActor } from "../../../src/db/tenant.ts";
import { expireInvitations } from "../../../src/modules/teams/jobs.ts";
import { invite, INVITATION_LIFETIME_MS, withdrawInvitation } from "../../../src/modules/teams/invitations.ts";
import { createTestCreator, uniqueEmail, type TestCreator } from "../../helpers/fixtures.ts";
import { testDatabase } from "../../helpers/backends.ts";

const DAY = 24 * 60 * 60_000;
// Long before any other test's invitations (made at the real time), so only these are ever due here.
const T0 = Date.parse("2020-01-01T00:00:00.000Z");

async function inviteAt(creator: TestCreator, at: number): Promise<string> {
  const { db } = await testDatabase();
  const actor = { ...systemActor(creator.teamId), userId: creator.userId, kind: "human" as const };
  const invitation = await db.transaction((trx) =>
    invite(
      createDomainContext(trx, actor, new Date(at)),
      { email: uniqueEmail("invitee"), role: "member" },
      { acceptUrl: (s) => `http://x/?token=${s}` },
    ),
  );
  return invitation.id;
}

describe("teams.invitations.expire (scheduled job)", () => {
  let a: TestCreator;
  let b: TestCreator;
  const ids: Record<string, string> = {};
  before(async () => {
    const { db } = await testDatabase();
    [a, b] = [await createTestCreator({ label: "expiry-a" }), await createTestCreator({ label: "expiry-b" })];
    ids.aDue = await inviteAt(a, T0);
    ids.aWithdrawn = await inviteAt(a, T0);
    await db.transaction((trx) =>
      withdrawInvitation(createDomainContext(trx, { ...systemActor(a.teamId), userId: a.userId }, new Date(T0)), ids.aWithdrawn!),
    );
    ids.bDue = await inviteAt(b, T0);
    ids.bLater = await inviteAt(b, T0 + 3 * DAY);
  });

  const statuses = async () => {
    const { db } = await testDatabase();
    const rows = (await db("team_invitations").whereIn("id", Object.values(ids)).select("id", "status")) as { id: string; status: string }[];
    return Object.fromEntries(Object.entries(ids).map(([key, id]) => [key, rows.find((r) => r.id === id)!.status]));
  };
  const expiryEntries = async (teamId: string) => {
    const { db } = await testDatabase();
    return db("activity_log").where({ team_id: teamId, event: "invitation_expired" }).orderBy("seq");
  };

  it("changes nothing before an invitation's expiry", async () => {
    const { db } = await testDatabase();
    assert.deepEqual(await expireInvitations.run({ db, now: new Date(T0 + INVITATION_LIFETIME_MS - 1) }), { changed: 0 });
    assert.deepEqual(await statuses(), { aDue: "pending", aWithdrawn: "withdrawn", bDue: "pending", bLater: "pending" });
  });

  it("expires what is due in every team, with an activity entry by the system actor, and changes nothing on a second run", async () => {
    const { db } = await testDatabase();
    const now = new Date(T0 + INVITATION_LIFETIME_MS);
    assert.deepEqual(await expireInvitations.run({ db, now }), { changed: 2 });
    assert.deepEqual(await statuses(), { aDue: "expired", aWithdrawn: "withdrawn", bDue: "expired", bLater: "pending" });
    for (const [team, id] of [
      [a.teamId, ids.aDue],
      [b.teamId, ids.bDue],
    ] as const) {
      const entries = await expiryEntries(team);
      assert.equal(entries.length, 1);
      assert.equal(entries[0].actor_kind, "system");
      assert.equal(entries[0].causer_id, null);
      assert.equal(new Date(entries[0].created_at).getTime(), now.getTime());
      assert.equal(entries[0].subject_type, "team");
      assert.equal(entries[0].subject_id, team);
      const properties = typeof entries[0].properties === "string" ? JSON.parse(entries[0].properties) : entries[0].properties;
      assert.equal(properties.invitation.id, id);
    }
    assert.deepEqual(await expireInvitations.run({ db, now }), { changed: 0 }, "idempotent at the same time");
    assert.equal((await expiryEntries(a.teamId)).length, 1);
  });

  it("changes each invitation once when two runs race", async () => {
    const { db } = await testDatabase();
    const now = new Date(T0 + 3 * DAY + INVITATION_LIFETIME_MS);
    const results = await Promise.all([expireInvitations.run({ db, now }), expireInvitations.run({ db, now })]);
    assert.equal(results[0]!.changed + results[1]!.changed, 1);
    assert.equal((await statuses()).bLater, "expired");
    assert.equal((await expiryEntries(b.teamId)).length, 2);
  });
});
