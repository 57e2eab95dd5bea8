// The creator's side of mass-removal holds over REST (issue 45): the installation's holds listed
// newest first and by status, with the role's resource and the capped user ids; confirm and cancel
// record who decided and an activity entry; a decided hold is refused (422 removal_hold_decided);
// another installation's or another team's hold is not found. The sweep's side: drift.test.ts.
import assert from "node:assert/strict";
import { createTestCreator } from "../../helpers/fixtures.ts";
import { expectError } from "../../helpers/http.ts";
import { newDiscordAuthorization } from "../../helpers/platforms.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { activityOf } from "../subscriptions/commerce.ts";
import { installPath, newProject, seedRemovalHold } from "./support.ts";

describe("removal holds over REST", function () {
  this.timeout(60_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });

  /** A new project of the suite's creator with Discord installed. */
  async function discordProject() {
    const project = await newProject(suite.creator);
    const { code } = await newDiscordAuthorization();
    const install = await suite.client.post(installPath(project, "discord"), { oauth: { code, redirect_uri: "https://dashboard.test/discord" } });
    assert.equal(install.status, 201, JSON.stringify(install.body));
    return project;
  }
  const holdsPath = (project: string, key = "discord") => `${installPath(project, key)}/removal-holds`;

  it("lists the installation's holds newest first, narrowed by status, with the resource and at most 100 user ids", async () => {
    const project = await discordProject();
    const many = Array.from({ length: 130 }, (_, i) => String(1100000000000000000n + BigInt(i)));
    const older = await seedRemovalHold(suite.client, project, {
      key: "discord",
      users: many,
      holders: 400,
      createdAt: new Date(Date.now() - 60_000),
    });
    const newer = await seedRemovalHold(suite.client, project, { key: "discord", status: "cancelled" });

    const all = await suite.client.get(holdsPath(project));
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.deepEqual(
      all.body.data.map((h: { id: string }) => h.id),
      [newer.id, older.id],
    );
    assert.equal(all.body.meta.total, 2);
    const hold = all.body.data[1];
    assert.deepEqual(hold.resource, { id: older.resource.id, title: "Held role" });
    assert.equal(hold.connector, "discord");
    assert.equal(hold.installation_id, older.installation.id);
    assert.equal(hold.planned_count, 130);
    assert.equal(hold.holders, 400);
    assert.deepEqual(hold.platform_user_ids, many.slice(0, 100), "the first 100 of the held ids");
    assert.equal(hold.status, "held");
    assert.equal(hold.decided_at, null);

    const held = await suite.client.get(`${holdsPath(project)}?status=held`);
    assert.deepEqual(
      held.body.data.map((h: { id: string }) => h.id),
      [older.id],
    );
    const page = await suite.client.get(`${holdsPath(project)}?per_page=1&page=2`);
    assert.deepEqual(
      page.body.data.map((h: { id: string }) => h.id),
      [older.id],
    );
    expectError(await suite.client.get(`${holdsPath(project)}?status=applied`), 422, "VALIDATION_FAILED");
  });

  it("lists none for an installation with no hold, and answers CONNECTOR_NOT_INSTALLED for a connector the project does not run", async () => {
    const project = await discordProject();
    const empty = await suite.client.get(holdsPath(project));
    assert.equal(empty.status, 200);
    assert.deepEqual(empty.body.data, []);
    expectError(await suite.client.get(holdsPath(project, "telegram")), 404, "CONNECTOR_NOT_INSTALLED");
  });

  for (const decision of ["confirm", "cancel"] as const) {
    const status = decision === "confirm" ? "confirmed" : "cancelled";
    it(`${decision}s an open hold once, naming who decided, and refuses deciding it again`, async () => {
      const project = await discordProject();
      const { id } = await seedRemovalHold(suite.client, project, { key: "discord" });
      const res = await suite.client.post(`${holdsPath(project)}/${id}/${decision}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.status, status);
      assert.equal(res.body.data.decided_by_user_id, suite.creator.userId);
      assert.ok(res.body.data.decided_at);
      assert.deepEqual((await suite.client.get(`${holdsPath(project)}?status=${status}`)).body.data, [res.body.data]);
      const entry = (await activityOf(suite.creator.teamId, project)).find((e) => e.event === `access_removal_hold_${status}`);
      assert.equal(entry?.properties.hold_id, id);

      for (const again of ["confirm", "cancel"]) {
        const error = expectError(await suite.client.post(`${holdsPath(project)}/${id}/${again}`), 422, "VALIDATION_FAILED");
        assert.deepEqual(error.context, { reason: "removal_hold_decided", hold_id: id, status });
      }
    });
  }

  it("does not find another installation's hold, an unknown id, or another team's hold", async () => {
    const project = await discordProject();
    const elsewhere = await discordProject();
    const { id } = await seedRemovalHold(suite.client, elsewhere, { key: "discord" });
    expectError(await suite.client.post(`${holdsPath(project)}/${id}/confirm`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.post(`${holdsPath(project)}/00000000-0000-4000-8000-000000000000/cancel`), 404, "RESOURCE_NOT_FOUND");

    const other = await createTestCreator({ tier: "growth" });
    const stranger = suite.client.withToken(other.token);
    assert.equal((await stranger.post(`${holdsPath(elsewhere)}/${id}/confirm`)).status, 404);
    assert.equal((await stranger.get(holdsPath(elsewhere))).status, 404);
    const listed = (await suite.client.get(`${holdsPath(elsewhere)}?status=held`)).body.data;
    assert.deepEqual(
      listed.map((h: { id: string }) => h.id),
      [id],
      "still held",
    );
  });
});
