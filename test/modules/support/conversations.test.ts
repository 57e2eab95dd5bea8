// The Support area's conversations: opened and appended by members' messages, listed with filters,
// read with their messages, assigned, closed and reopened; events and activity entries.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { createTestCreator, joinTeamWithToken } from "../../helpers/fixtures.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { activityOf, expectFieldRefusal, expectGuarded, patch, teamSnapshot } from "../resources/support.ts";
import { seedInstallation } from "../../helpers/platforms.ts";
import { memberWrites, newAccount, openConversation } from "./inbox.ts";

const TABLES = ["support_conversations", "support_messages"];

describe("support conversations", function () {
  this.timeout(90_000);
  const suite = useApiWithCreator({ creator: { label: "support", projects: 2 } });
  const project = () => suite.creator.projectIds[0]!;
  const base = () => `/v1/projects/${project()}/support/conversations`;
  const snapshot = () => teamSnapshot(suite.creator.teamId, TABLES);
  const update = (id: string, body: unknown) => patch(suite.client, `${base()}/${id}`, body);

  it("a member's message opens a conversation; later ones join it until it is closed", async () => {
    const account = newAccount();
    const first = await memberWrites(suite.creator, project(), { account, text: "My invite link expired\nSince yesterday." });
    assert.equal(first.kind, "opened");
    if (first.kind !== "opened") return;
    const second = await memberWrites(suite.creator, project(), { account, text: "  Could you send me a new one?  " });
    assert.equal(second.kind, "appended");
    const read = (await suite.client.get(`${base()}/${first.conversation.id}`)).body.data;
    assert.deepEqual(
      [read.subject, read.status, read.message_count, read.last_message_preview, read.member_display_name, read.assignee_id],
      ["My invite link expired", "open", 2, "Could you send me a new one?", "Ada Member", null],
    );
    assert.deepEqual(
      read.recent_messages.map((m: { body: string; direction: string }) => [m.direction, m.body]),
      [
        ["in", "My invite link expired\nSince yesterday."],
        ["in", "Could you send me a new one?"],
      ],
    );
    assert.equal((await update(read.id, { status: "closed" })).status, 200);
    const third = await memberWrites(suite.creator, project(), { account, text: "One more thing" });
    assert.equal(third.kind, "opened");
    if (third.kind === "opened") assert.notEqual(third.conversation.id, read.id);
  });

  it("two simultaneous messages of a new member: one conversation opened, the other joins it", async () => {
    const account = newAccount();
    await seedInstallation(suite.creator.teamId, project());
    const receipts = await Promise.all(["one", "two"].map((text) => memberWrites(suite.creator, project(), { account, text })));
    assert.deepEqual(receipts.map((r) => r.kind).sort(), ["appended", "opened"]);
    const ids = new Set(receipts.map((r) => (r.kind === "dropped" ? null : r.conversation.id)));
    assert.equal(ids.size, 1);
    const read = (await suite.client.get(`${base()}/${[...ids][0]}`)).body.data;
    assert.equal(read.message_count, 2);
  });

  it("cuts long subjects and previews, and bodies at 4096 characters", async () => {
    const long = "x".repeat(5000);
    const conversation = await openConversation(suite.creator, project(), long);
    assert.equal(conversation.subject.length, 80);
    assert.ok(conversation.subject.endsWith("…"));
    assert.equal(conversation.last_message_preview.length, 140);
    const read = (await suite.client.get(`${base()}/${conversation.id}`)).body.data;
    assert.equal(read.recent_messages[0].body.length, 4096);
  });

  it("drops empty text, a connector without the relay and a banned member's message; nothing written", async () => {
    const account = newAccount();
    await openConversation(suite.creator, project());
    const before = await snapshot();
    assert.deepEqual(await memberWrites(suite.creator, project(), { text: "   " }), { kind: "dropped", reason: "empty" });
    assert.deepEqual(await memberWrites(suite.creator, project(), { connectors: { packages: new Map() } }), { kind: "dropped", reason: "no_relay" });
    assert.deepEqual(await snapshot(), before);
    const opened = await memberWrites(suite.creator, project(), { account });
    if (opened.kind !== "opened") throw new Error("not opened");
    const ban = await suite.client.post(`/v1/projects/${project()}/members/${opened.conversation.member_id}/ban`, {});
    assert.equal(ban.status, 200, JSON.stringify(ban.body));
    const banned = await snapshot();
    assert.deepEqual(await memberWrites(suite.creator, project(), { account }), { kind: "dropped", reason: "member_banned" });
    assert.deepEqual(await snapshot(), banned);
  });

  it("lists newest first, 25 a page, with filters status, member_id, assignee_id, unassigned and sort_by", async () => {
    const own = suite.creator.projectIds[1]!;
    const list = (query = "") => suite.client.get(`/v1/projects/${own}/support/conversations${query}`);
    const a = await openConversation(suite.creator, own, "first");
    const b = await openConversation(suite.creator, own, "second");
    const c = await openConversation(suite.creator, own, "third");
    const page = await list();
    assert.equal(page.status, 200);
    assert.equal(page.body.meta.per_page, 25);
    const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((r) => r.id);
    assert.deepEqual(ids(page), [c.id, b.id, a.id]);
    const closed = await patch(suite.client, `/v1/projects/${own}/support/conversations/${a.id}`, { status: "closed" });
    assert.equal(closed.body.data.status, "closed");
    await patch(suite.client, `/v1/projects/${own}/support/conversations/${b.id}`, { assignee_id: suite.creator.userId });
    assert.deepEqual(ids(await list("?status=open")), [c.id, b.id]);
    assert.deepEqual(ids(await list("?status=closed")), [a.id]);
    assert.deepEqual(ids(await list(`?assignee_id=${suite.creator.userId}`)), [b.id]);
    assert.deepEqual(ids(await list("?unassigned=true")), [c.id, a.id]);
    assert.deepEqual(ids(await list("?unassigned=false")), [b.id]);
    assert.deepEqual(ids(await list(`?member_id=${c.member_id}`)), [c.id]);
    await memberWrites(suite.creator, own, { text: "a later message" });
    const byActivity = await list("?sort_by=last_message_at&sort_direction=asc");
    assert.equal(byActivity.status, 200);
    assert.deepEqual(ids(byActivity).slice(0, 3), [a.id, b.id, c.id]);
    const refused = expectError(await list(`?assignee_id=${suite.creator.userId}&unassigned=true`), 422, "VALIDATION_FAILED");
    assert.deepEqual(Object.keys(refused.fields), ["unassigned"]);
    for (const query of ["?status=pending", "?member_id=nope", "?unassigned=maybe"]) expectError(await list(query), 422, "VALIDATION_FAILED");
    assert.equal((await list("?sort_by=subject")).body.links.first.includes("sort_by=created_at"), true, "an unoffered column falls back");
  });

  it("reads a conversation with its 20 newest messages; pages through every message", async () => {
    const account = newAccount();
    const first = await memberWrites(suite.creator, project(), { account, text: "message 1" });
    if (first.kind !== "opened") throw new Error("not opened");
    for (let i = 2; i <= 23; i++) await memberWrites(suite.creator, project(), { account, text: `message ${i}` });
    const read = (await suite.client.get(`${base()}/${first.conversation.id}`)).body.data;
    assert.equal(read.message_count, 23);
    assert.deepEqual(
      read.recent_messages.map((m: { body: string }) => m.body),
      Array.from({ length: 20 }, (_, i) => `message ${i + 4}`),
    );
    const messages = `${base()}/${first.conversation.id}/messages`;
    const newest = await suite.client.get(`${messages}?per_page=5`);
    assert.deepEqual([newest.body.meta.total, newest.body.data[0].body], [23, "message 23"]);
    const oldest = await suite.client.get(`${messages}?sort_direction=asc&per_page=10&page=3`);
    assert.deepEqual(
      oldest.body.data.map((m: { body: string }) => m.body),
      ["message 21", "message 22", "message 23"],
    );
    for (const path of [`${base()}/${randomUUID()}`, `${base()}/${randomUUID()}/messages`])
      expectError(await suite.client.get(path), 404, "RESOURCE_NOT_FOUND");
    const elsewhere = `/v1/projects/${suite.creator.projectIds[1]}/support/conversations/${first.conversation.id}`;
    expectError(await suite.client.get(elsewhere), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(`${elsewhere}/messages`), 404, "RESOURCE_NOT_FOUND");
  });

  it("assigns to the owner or a team member, unassigns; refuses anyone else naming assignee_id", async () => {
    const conversation = await openConversation(suite.creator, project());
    const colleague = await createTestCreator({ label: "support-colleague" });
    await joinTeamWithToken(suite.creator, colleague, ["support-conversation:view-any"]);
    for (const assignee of [suite.creator.userId, colleague.userId, null]) {
      const res = await update(conversation.id, { assignee_id: assignee });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.assignee_id, assignee);
    }
    const outsider = await createTestCreator({ label: "support-outsider" });
    for (const assignee of [outsider.userId, randomUUID()])
      await expectFieldRefusal(() => update(conversation.id, { assignee_id: assignee }), "assignee_id", snapshot);
    for (const body of [{}, { status: "pending" }, { assignee_id: "nobody" }, { subject: "x" }])
      await expectFieldRefusal(() => update(conversation.id, body), "", snapshot);
    expectError(await update(randomUUID(), { status: "closed" }), 404, "RESOURCE_NOT_FOUND");
  });

  it("hands back a removed team member's conversations: unassigned, with their events", async () => {
    const conversation = await openConversation(suite.creator, suite.creator.projectIds[1]!);
    const colleague = await createTestCreator({ label: "support-leaver" });
    await joinTeamWithToken(suite.creator, colleague, ["support-conversation:view-any"]);
    const path = `/v1/projects/${suite.creator.projectIds[1]}/support/conversations/${conversation.id}`;
    assert.equal((await patch(suite.client, path, { assignee_id: colleague.userId })).status, 200);
    const removed = await suite.client.delete(`/v1/teams/${suite.creator.teamId}/members/${colleague.userId}`);
    assert.equal(removed.status, 204, JSON.stringify(removed.body));
    assert.equal((await suite.client.get(path)).body.data.assignee_id, null);
    const [event] = (await eventsOf(suite.creator.teamId, "support.conversation.unassigned")).filter(
      (e) => e.data.conversation.id === conversation.id,
    );
    assertValidEvent(event!);
    assert.equal(event!.data.previous_assignee_id, colleague.userId);
  });

  it("closes and reopens; the state it already has changes nothing; reopening beside an open conversation is refused", async () => {
    const account = newAccount();
    const first = await memberWrites(suite.creator, project(), { account });
    if (first.kind !== "opened") throw new Error("not opened");
    const id = first.conversation.id;
    const closed = (await update(id, { status: "closed" })).body.data;
    assert.equal(closed.status, "closed");
    assert.ok(closed.closed_at);
    const before = await snapshot();
    for (const body of [{ status: "closed" }, { assignee_id: null }, { status: "closed", assignee_id: null }]) {
      const same = await update(id, body);
      assert.equal(same.status, 200);
      assert.deepEqual(same.body.data, closed);
    }
    assert.deepEqual(await snapshot(), before, "no change, no event, no entry");
    const reopened = (await update(id, { status: "open" })).body.data;
    assert.deepEqual([reopened.status, reopened.closed_at], ["open", null]);
    await update(id, { status: "closed" });
    const second = await memberWrites(suite.creator, project(), { account });
    if (second.kind !== "opened") throw new Error("not opened");
    const blocked = await snapshot();
    const refusal = expectError(await update(id, { status: "open" }), 422, "VALIDATION_FAILED");
    assert.deepEqual(refusal.context, { conversation_id: second.conversation.id });
    assert.deepEqual(await snapshot(), blocked);
  });

  it("answers 404 for another team's project and conversations", async () => {
    const other = await createTestCreator({ label: "support-other" });
    const theirs = await openConversation(other, other.projectIds[0]!);
    const path = `/v1/projects/${other.projectIds[0]}/support/conversations`;
    expectError(await suite.client.get(path), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(`${path}/${theirs.id}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await patch(suite.client, `${path}/${theirs.id}`, { status: "closed" }), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(`${base()}/${theirs.id}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await update(theirs.id, { status: "closed" }), 404, "RESOURCE_NOT_FOUND");
    const ours = new ApiClient(suite.api.url, other.token);
    assert.equal((await ours.get(`${path}/${theirs.id}`)).status, 200);
  });

  it("requires a credential (401) and the route's ability (403 naming it)", async () => {
    const conversation = await openConversation(suite.creator, project());
    const one = `${base()}/${conversation.id}`;
    for (const route of [
      { method: "GET", path: base(), ability: "support-conversation:view-any" },
      { method: "GET", path: one, ability: "support-conversation:view" },
      { method: "GET", path: `${one}/messages`, ability: "support-conversation:view" },
      { method: "PATCH", path: one, ability: "support-conversation:update", body: { status: "closed" } },
    ])
      await expectGuarded(suite.client, suite.creator, route);
  });

  it("opened, message.received, assigned, unassigned, closed, reopened: valid events and activity entries", async () => {
    const account = newAccount();
    const opened = await memberWrites(suite.creator, project(), { account });
    if (opened.kind !== "opened") throw new Error("not opened");
    const id = opened.conversation.id;
    await memberWrites(suite.creator, project(), { account, text: "again" });
    const assigned = (await update(id, { assignee_id: suite.creator.userId })).body.data;
    const unassigned = (await update(id, { assignee_id: null })).body.data;
    const closed = (await update(id, { status: "closed" })).body.data;
    const reopened = (await update(id, { status: "open" })).body.data;
    const expected: [string, Record<string, unknown>][] = [
      ["support.conversation.opened", { conversation: opened.conversation, message: opened.message }],
      ["support.conversation.assigned", { conversation: assigned, previous_assignee_id: null }],
      ["support.conversation.unassigned", { conversation: unassigned, previous_assignee_id: suite.creator.userId }],
      ["support.conversation.closed", { conversation: closed }],
      ["support.conversation.reopened", { conversation: reopened }],
    ];
    for (const [type, data] of expected) {
      const events = (await eventsOf(suite.creator.teamId, type)).filter((e) => e.data.conversation?.id === id);
      assert.equal(events.length, 1, `one ${type}`);
      assertValidEvent(events[0]!);
      assert.deepEqual(events[0]!.data, data);
      const entries = await activityOf(suite.creator.teamId, type.replace(/\./g, "_"), id);
      assert.equal(entries.length, 1, `one ${type} entry`);
      assert.equal(entries[0]!.subject_type, "support-conversation");
    }
    const received = (await eventsOf(suite.creator.teamId, "support.message.received")).filter((e) => e.data.conversation?.id === id);
    assert.equal(received.length, 1);
    assertValidEvent(received[0]!);
    assert.equal(received[0]!.data.message.body, "again");
    assert.equal(received[0]!.data.conversation.message_count, 2);
    assert.ok(!JSON.stringify(received[0]).includes("email"), "no email in payloads");
    const log = await suite.client.get(`/v1/activity?subject_type=support-conversation&subject_id=${id}`);
    assert.equal(log.status, 200);
    assert.equal(log.body.data.length, 6);
  });
});
