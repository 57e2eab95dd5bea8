// The Support area's canned replies: titles unique within the project regardless of case, listed,
// changed and deleted; activity entries and no events.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { createTestCreator } from "../../helpers/fixtures.ts";
import { eventsOf } from "../../helpers/events.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { activityOf, expectFieldRefusal, expectGuarded, patch, teamSnapshot } from "../resources/support.ts";

const TABLES = ["support_canned_replies"];
const title = () => `Reply ${randomUUID().slice(0, 8)}`;

describe("canned replies", function () {
  this.timeout(90_000);
  const suite = useApiWithCreator({ creator: { label: "canned", projects: 2 } });
  const project = () => suite.creator.projectIds[0]!;
  const base = () => `/v1/projects/${project()}/support/canned-replies`;
  const snapshot = () => teamSnapshot(suite.creator.teamId, TABLES);
  const create = async (body: Record<string, unknown> = {}) => {
    const res = await suite.client.post(base(), { title: title(), body: "Here is a fresh invite link.", ...body });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data;
  };

  it("creates (201) and lists newest first, 25 a page, or by title", async () => {
    const own = suite.creator.projectIds[1]!;
    const path = `/v1/projects/${own}/support/canned-replies`;
    const b = (await suite.client.post(path, { title: "b refund", body: "Refunds take five days." })).body.data;
    const a = (await suite.client.post(path, { title: "A welcome", body: "Welcome aboard!" })).body.data;
    assert.deepEqual([a.title, a.body, a.created_by_user_id, a.project_id], ["A welcome", "Welcome aboard!", suite.creator.userId, own]);
    const page = await suite.client.get(path);
    assert.equal(page.body.meta.per_page, 25);
    assert.deepEqual(
      page.body.data.map((r: { id: string }) => r.id),
      [a.id, b.id],
    );
    const byTitle = await suite.client.get(`${path}?sort_by=title&sort_direction=asc`);
    assert.deepEqual(
      byTitle.body.data.map((r: { title: string }) => r.title),
      ["A welcome", "b refund"],
    );
  });

  it("titles are unique within the project regardless of case (422 naming title); another project may use one", async () => {
    const first = await create({ title: "Invite Link" });
    await expectFieldRefusal(() => suite.client.post(base(), { title: "invite link", body: "x" }), "title", snapshot);
    const elsewhere = await suite.client.post(`/v1/projects/${suite.creator.projectIds[1]}/support/canned-replies`, {
      title: "Invite Link",
      body: "x",
    });
    assert.equal(elsewhere.status, 201);
    const other = await create();
    await expectFieldRefusal(() => patch(suite.client, `${base()}/${other.id}`, { title: "INVITE LINK" }), "title", snapshot);
    const recased = await patch(suite.client, `${base()}/${first.id}`, { title: "invite link" });
    assert.equal(recased.status, 200, "a reply may change the case of its own title");
    assert.equal(recased.body.data.title, "invite link");
  });

  it("simultaneous creations with one title: one 201, one 422 naming title", async () => {
    const body = { title: title(), body: "x" };
    const answers = await Promise.all([0, 1].map(() => suite.client.post(base(), body)));
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, 422], JSON.stringify(answers.map((a) => a.body)));
    assert.ok(answers.find((a) => a.status === 422)!.body.error.fields.title);
  });

  it("refuses bad bodies (422 naming the field); nothing written", async () => {
    for (const [body, field] of [
      [{ body: "x" }, "title"],
      [{ title: "", body: "x" }, "title"],
      [{ title: "   ", body: "x" }, "title"],
      [{ title: "x".repeat(101), body: "x" }, "title"],
      [{ title: title() }, "body"],
      [{ title: title(), body: "x".repeat(4097) }, "body"],
      [{ title: title(), body: "x", shared: true }, "shared"],
    ] as const)
      await expectFieldRefusal(() => suite.client.post(base(), body), field, snapshot);
    const reply = await create();
    for (const body of [{}, { body: "" }, { project_id: randomUUID() }])
      expectError(await patch(suite.client, `${base()}/${reply.id}`, body), 422, "VALIDATION_FAILED");
  });

  it("changes title and body (200); deletes (204), then 404", async () => {
    const reply = await create();
    const res = await patch(suite.client, `${base()}/${reply.id}`, { title: "Renamed", body: "New text" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.data.title, res.body.data.body, res.body.data.created_at], ["Renamed", "New text", reply.created_at]);
    assert.equal((await suite.client.delete(`${base()}/${reply.id}`)).status, 204);
    expectError(await suite.client.delete(`${base()}/${reply.id}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await patch(suite.client, `${base()}/${reply.id}`, { body: "x" }), 404, "RESOURCE_NOT_FOUND");
    const other = await create();
    expectError(
      await patch(suite.client, `/v1/projects/${suite.creator.projectIds[1]}/support/canned-replies/${other.id}`, { body: "x" }),
      404,
      "RESOURCE_NOT_FOUND",
    );
  });

  it("answers 404 for another team's project and replies", async () => {
    const other = await createTestCreator({ label: "canned-other" });
    const path = `/v1/projects/${other.projectIds[0]}/support/canned-replies`;
    const theirs = (await new ApiClient(suite.api.url, other.token).post(path, { title: title(), body: "x" })).body.data;
    expectError(await suite.client.get(path), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.post(path, { title: title(), body: "x" }), 404, "RESOURCE_NOT_FOUND");
    expectError(await patch(suite.client, `${path}/${theirs.id}`, { body: "x" }), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.delete(`${base()}/${theirs.id}`), 404, "RESOURCE_NOT_FOUND");
  });

  it("requires a credential (401) and the route's ability (403 naming it)", async () => {
    const reply = await create();
    const one = `${base()}/${reply.id}`;
    for (const route of [
      { method: "GET", path: base(), ability: "support-canned-reply:view-any" },
      { method: "POST", path: base(), ability: "support-canned-reply:create", body: { title: title(), body: "x" } },
      { method: "PATCH", path: one, ability: "support-canned-reply:update", body: { body: "y" } },
      { method: "DELETE", path: one, ability: "support-canned-reply:delete" },
    ])
      await expectGuarded(suite.client, suite.creator, route);
  });

  it("records canned_reply_created, _updated and _deleted entries about the reply, and emits no event", async () => {
    const events = (await eventsOf(suite.creator.teamId)).length;
    const created = await create();
    const updated = (await patch(suite.client, `${base()}/${created.id}`, { body: "Changed" })).body.data;
    assert.equal((await suite.client.delete(`${base()}/${created.id}`)).status, 204);
    for (const [event, shown] of [
      ["canned_reply_created", created],
      ["canned_reply_updated", updated],
      ["canned_reply_deleted", updated],
    ] as const) {
      const entries = await activityOf(suite.creator.teamId, event, created.id);
      assert.equal(entries.length, 1, `one ${event}`);
      assert.equal(entries[0]!.subject_type, "support-canned-reply");
      assert.deepEqual(entries[0]!.properties, { canned_reply: shown });
    }
    assert.equal((await eventsOf(suite.creator.teamId)).length, events);
    const log = await suite.client.get(`/v1/activity?subject_type=support-canned-reply&subject_id=${created.id}`);
    assert.equal(log.status, 200);
    assert.equal(log.body.data.length, 3);
  });
});
