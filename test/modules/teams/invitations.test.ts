// Invitations: the summary, the message with its link (the secret only hashed at rest), listing and
// withdrawal, and acceptance by the creator signed in with the invited address.
import assert from "node:assert/strict";
import { createTestCreator, type TestCreator } from "../../helpers/fixtures.ts";
import { expectError } from "../../helpers/http.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { AUTH_URL } from "../../helpers/server.ts";
import { pendingMail } from "../../../src/modules/mail/outbox.ts";
import { acceptInvitation, describeInvitation, INVITATION_LIFETIME_MS } from "../../../src/modules/teams/invitations.ts";
import { sha256Hex } from "../../../src/security/crypto.ts";

describe("teams: invitations", () => {
  const suite = useApiWithCreator();
  let owner: TestCreator;
  before(() => {
    owner = suite.creator;
  });

  const invite = (email: string, role = "member") => suite.client.post(`/v1/teams/${owner.teamId}/members`, { email, role });

  /** Invites a fresh creator's address and returns the creator and the link's secret from the mail. */
  async function invited(role = "member") {
    const person = await createTestCreator({ label: "invitee" });
    const res = await invite(person.email.toUpperCase(), role);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const { db } = await testDatabase();
    const [mail] = await pendingMail(db, person.email);
    const secret = new URL(/https?:\/\/\S+/.exec(mail!.body)![0]).searchParams.get("token")!;
    return { person, invitation: res.body.data, secret, mail: mail! };
  }

  it("answers the invitation summary and mails a link, storing only a hash of its secret", async () => {
    const { person, invitation, secret, mail } = await invited("admin");
    assert.equal(invitation.email, person.email, "addresses are kept in lower case");
    assert.equal(invitation.role, "admin");
    assert.equal(invitation.status, "pending");
    assert.equal(invitation.invited_by_user_id, owner.userId);
    assert.equal(new Date(invitation.expires_at).getTime() - new Date(invitation.created_at).getTime(), INVITATION_LIFETIME_MS);
    assert.match(mail.body, new RegExp(`${AUTH_URL}/invitations/accept\\?token=`));
    assert.match(mail.subject, /invited to join/);
    const { db } = await testDatabase();
    const row = await db("team_invitations").where({ id: invitation.id }).first();
    assert.equal(row.token_hash, sha256Hex(secret));
    assert.ok(!JSON.stringify(row).includes(secret));

    const [event] = (await eventsOf(owner.teamId, "team.member.invited")).filter((e) => e.data.invitation.id === invitation.id);
    assertValidEvent(event!);
    assert.ok(!JSON.stringify(event).includes(secret), "the event carries no secret");
    const entry = await db("activity_log").where({ team_id: owner.teamId, event: "member_invited" }).orderBy("seq", "desc").first();
    assert.ok(!JSON.stringify(entry.properties).includes(secret));
  });

  it("lists pending invitations, and withdraws one: its link stops working", async () => {
    const { invitation, secret, person } = await invited();
    const listed = (await suite.client.get(`/v1/teams/${owner.teamId}/invitations?per_page=100`)).body.data.map((i: { id: string }) => i.id);
    assert.ok(listed.includes(invitation.id));
    assert.equal((await suite.client.delete(`/v1/teams/${owner.teamId}/invitations/${invitation.id}`)).status, 204);
    assert.ok(
      !(await suite.client.get(`/v1/teams/${owner.teamId}/invitations?per_page=100`)).body.data.some((i: { id: string }) => i.id === invitation.id),
    );
    expectError(await suite.client.delete(`/v1/teams/${owner.teamId}/invitations/${invitation.id}`), 404, "RESOURCE_NOT_FOUND");
    const { db } = await testDatabase();
    await assert.rejects(
      acceptInvitation(db, { secret, userId: person.userId, now: new Date() }),
      (err: { context?: { reason?: string } }) => err.context?.reason === "no_longer_pending",
    );
  });

  it("accepts: the membership appears with the invited role and team.member.joined is emitted", async () => {
    const { person, invitation, secret } = await invited("admin");
    const { db } = await testDatabase();
    const stranger = await createTestCreator({ label: "stranger" });
    await assert.rejects(
      acceptInvitation(db, { secret, userId: stranger.userId, now: new Date() }),
      (err: { context?: { reason?: string } }) => err.context?.reason === "email_mismatch",
    );
    await assert.rejects(
      acceptInvitation(db, { secret: "not-the-secret", userId: person.userId, now: new Date() }),
      (err: { context?: { reason?: string } }) => err.context?.reason === "unknown",
    );

    assert.deepEqual(await acceptInvitation(db, { secret, userId: person.userId, now: new Date() }), { teamId: owner.teamId, role: "admin" });
    const member = (await suite.client.get(`/v1/teams/${owner.teamId}/members/${person.userId}`)).body.data;
    assert.equal(member.role, "admin");
    const [event] = (await eventsOf(owner.teamId, "team.member.joined")).filter((e) => e.data.invitation_id === invitation.id);
    assertValidEvent(event!);
    assert.deepEqual(event!.data.member, { user_id: person.userId, email: person.email, role: "admin" });
    await assert.rejects(
      acceptInvitation(db, { secret, userId: person.userId, now: new Date() }),
      (err: { context?: { reason?: string } }) => err.context?.reason === "no_longer_pending",
    );
    expectError(await invite(person.email), 422, "VALIDATION_FAILED");
  });

  it("refuses an expired link, and lets the address be invited again", async () => {
    const { person, secret } = await invited();
    const { db } = await testDatabase();
    const later = new Date(Date.now() + INVITATION_LIFETIME_MS + 1000);
    await assert.rejects(
      acceptInvitation(db, { secret, userId: person.userId, now: later }),
      (err: { context?: { reason?: string } }) => err.context?.reason === "expired",
    );
    await db("team_invitations")
      .where({ email: person.email, team_id: owner.teamId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    const again = await invite(person.email);
    assert.equal(again.status, 201, "an expired invitation does not block a new one");
    assert.equal((await db("team_invitations").where({ email: person.email, team_id: owner.teamId, status: "expired" })).length, 1);
  });

  it("describes a link (team, role, address) for the page, refusing as acceptance refuses, and changes nothing", async () => {
    const { person, invitation, secret } = await invited("admin");
    const { db } = await testDatabase();
    const team = (await db("teams").where({ id: owner.teamId }).first("name")) as { name: string };
    assert.deepEqual(await describeInvitation(db, { secret, now: new Date() }), {
      teamId: owner.teamId,
      teamName: team.name,
      email: person.email,
      role: "admin",
      roleName: "Admin",
      expiresAt: invitation.expires_at,
    });
    assert.equal((await db("team_invitations").where({ id: invitation.id }).first("status")).status, "pending");
    const reasonOf = async (input: { secret: string; now: Date }) => {
      try {
        await describeInvitation(db, input);
        return "described";
      } catch (err) {
        return (err as { context?: { reason?: string } }).context?.reason;
      }
    };
    assert.equal(await reasonOf({ secret: "not-the-secret", now: new Date() }), "unknown");
    assert.equal(await reasonOf({ secret, now: new Date(Date.now() + INVITATION_LIFETIME_MS + 1000) }), "expired");
    await acceptInvitation(db, { secret, userId: person.userId, now: new Date() });
    assert.equal(await reasonOf({ secret, now: new Date() }), "no_longer_pending");
  });
});
