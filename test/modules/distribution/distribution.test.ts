// Distribution: the deep link (precedence access_code > plan_id > custom, the payload table, the
// refusals of the description, and a round trip through the SDK's readStartPayload) and the
// portal URL for the project's current handle, over REST and MCP.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readStartPayload } from "../../../sdk/src/connector/index.ts";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { createTestCreator, tokenFor } from "../../helpers/fixtures.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { PORTAL_URL } from "../../helpers/platforms.ts";
import { expectReached } from "../../tenancy/callers.ts";
import { installPath, installTelegram, newProject, useMcpBeside } from "../connectors/support.ts";

/** A plan row of the project, written directly (the plans API is another area's). */
async function planOf(teamId: string, projectId: string): Promise<string> {
  const { db } = await testDatabase();
  const id = randomUUID();
  const now = new Date();
  await db("plans").insert({
    id,
    team_id: teamId,
    project_id: projectId,
    name: "Monthly",
    amount_minor: 500,
    currency: "EUR",
    billing_cycle: "month",
    created_at: now,
    updated_at: now,
  });
  return id;
}

const deepLinkPath = (project: string, query: Record<string, string> = {}) =>
  `/v1/projects/${project}/distribution/deep-link${Object.keys(query).length ? `?${new URLSearchParams(query)}` : ""}`;

describe("distribution", () => {
  const suite = useApiWithCreator({ creator: { label: "distribution" } });
  let project: string;
  let botUrl: string;
  let plan: string;
  before(async () => {
    project = await newProject(suite.creator);
    botUrl = (await installTelegram(suite.client, project)).installation.bot_url;
    plan = await planOf(suite.creator.teamId, project);
  });

  const link = async (query: Record<string, string>) => {
    const res = await suite.client.get(deepLinkPath(project, query));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data;
  };

  it("builds each row of the payload table, and each link round-trips through readStartPayload", async () => {
    const code = "SPRING-2026_a";
    const uuidCode = randomUUID();
    const rows: { query: Record<string, string>; payload: string; kind: string; acted: boolean; read: { kind: string; value?: string } }[] = [
      { query: { access_code: code }, payload: code, kind: "access_code", acted: true, read: { kind: "home" } },
      { query: { access_code: uuidCode }, payload: uuidCode, kind: "access_code", acted: true, read: { kind: "uuid", value: uuidCode } },
      { query: { plan_id: plan }, payload: plan, kind: "plan_id", acted: true, read: { kind: "uuid", value: plan } },
      { query: { custom: "newsletter_june-1" }, payload: "newsletter_june-1", kind: "custom", acted: false, read: { kind: "home" } },
      { query: {}, payload: `project_${project}`, kind: "project", acted: false, read: { kind: "home" } },
    ];
    for (const row of rows) {
      const data = await link(row.query);
      assert.deepEqual(data, {
        project_id: project,
        connector: "telegram",
        bot_url: botUrl,
        start_payload: row.payload,
        deep_link: `${botUrl}?start=${encodeURIComponent(row.payload)}`,
        payload_kind: row.kind,
        acted_on: row.acted,
      });
      const start = new URL(data.deep_link).searchParams.get("start");
      assert.equal(start, row.payload, "the link carries the payload");
      assert.deepEqual(readStartPayload(start), row.read, `${JSON.stringify(row.query)} reads back as ${row.read.kind}`);
    }
  });

  it("uses at most one query: access_code over plan_id over custom", async () => {
    assert.equal((await link({ access_code: "CODE1", plan_id: plan, custom: "abc" })).start_payload, "CODE1");
    assert.equal((await link({ plan_id: plan, custom: "abc" })).start_payload, plan);
    // An unused plan_id is not looked up: the access code wins before it.
    assert.equal((await link({ access_code: "CODE1", plan_id: randomUUID() })).payload_kind, "access_code");
  });

  it("answers 404 for a plan of another project or team, 422 for a malformed plan_id or custom, and refuses a payload the bot would act on", async () => {
    const otherProject = await newProject(suite.creator);
    const elsewhere = await planOf(suite.creator.teamId, otherProject);
    for (const id of [elsewhere, randomUUID()])
      expectError(await suite.client.get(deepLinkPath(project, { plan_id: id })), 404, "RESOURCE_NOT_FOUND");
    const invalid: [Record<string, string>, string][] = [
      [{ plan_id: "not-a-uuid" }, "plan_id"],
      [{ custom: "has space" }, "custom"],
      [{ custom: "x".repeat(65) }, "custom"],
      [{ custom: "" }, "custom"],
      [{ access_code: "c".repeat(65) }, "access_code"],
      [{ custom: "auth_abc" }, "custom"],
      [{ custom: "-ban_-42_-confirm" }, "custom"],
      [{ custom: randomUUID() }, "custom"],
      [{ access_code: "auth_token" }, "access_code"],
      [{ access_code: "-check_-1" }, "access_code"],
    ];
    for (const [query, field] of invalid) {
      const error = expectError(await suite.client.get(deepLinkPath(project, query)), 422, "VALIDATION_FAILED");
      assert.deepEqual(Object.keys(error.fields ?? {}), [field], JSON.stringify(query));
    }
  });

  it("answers 422 no_bot_attached without a connected installation with a bot; Discord's is its portal entry", async () => {
    const bare = await newProject(suite.creator);
    const error = expectError(await suite.client.get(deepLinkPath(bare)), 422, "VALIDATION_FAILED");
    assert.deepEqual(error.context, { reason: "no_bot_attached", project_id: bare });
    assert.equal(error.fields, undefined);
    const { newDiscordAuthorization } = await import("../../helpers/platforms.ts");
    const { code } = await newDiscordAuthorization();
    assert.equal(
      (await suite.client.post(installPath(bare, "discord"), { oauth: { code, redirect_uri: "https://app.example.test/cb" } })).status,
      201,
    );
    // Discord has no start links: its deep link is the installation's portal entry, which signs the member in with Discord.
    const discord = await suite.client.get(deepLinkPath(bare));
    assert.equal(discord.status, 200, JSON.stringify(discord.body));
    assert.match(discord.body.data.deep_link, /\/connectors\/discord\/[0-9a-f-]{36}\?start=project_/);
    // Uninstalling the bot detaches it.
    const other = await newProject(suite.creator);
    await installTelegram(suite.client, other);
    assert.equal((await suite.client.delete(installPath(other))).status, 204);
    assert.equal(expectError(await suite.client.get(deepLinkPath(other)), 422, "VALIDATION_FAILED").context.reason, "no_bot_attached");
  });

  it("answers the portal URL for the project's current handle", async () => {
    const { db } = await testDatabase();
    const res = await suite.client.get(`/v1/projects/${project}/distribution/portal-url`);
    assert.equal(res.status, 200);
    const handle = (await db("projects").where({ id: project }).first("handle")).handle;
    assert.deepEqual(res.body.data, { project_id: project, handle, portal_url: `${PORTAL_URL}/${handle}` });
    await db("projects").where({ id: project }).update({ handle: "night-owls-club" });
    assert.equal((await suite.client.get(`/v1/projects/${project}/distribution/portal-url`)).body.data.portal_url, `${PORTAL_URL}/night-owls-club`);
  });

  it("needs distribution:read (403), a credential (401), and answers 404 for another team's project", async () => {
    const none = await tokenFor(suite.creator, ["project:view"]);
    const other = new ApiClient(suite.api.url, (await createTestCreator({ label: "distribution-other" })).token);
    for (const path of [deepLinkPath(project), `/v1/projects/${project}/distribution/portal-url`]) {
      assert.equal(
        expectError(await suite.client.get(path, { token: none.token }), 403, "TOKEN_MISSING_ABILITY").context.required_ability,
        "distribution:read",
      );
      expectError(await new ApiClient(suite.api.url).get(path), 401, "AUTHENTICATION_REQUIRED");
      expectError(await other.get(path), 404, "RESOURCE_NOT_FOUND");
    }
  });

  describe("over MCP", () => {
    const mcp = useMcpBeside(suite);

    it("get_deep_link and get_portal_url answer what REST answers", async () => {
      const caller = await mcp.creator();
      const viaMcp = expectReached(await caller.call("get_deep_link", { path: { project }, query: { plan_id: plan } }));
      assert.deepEqual(viaMcp.data, await link({ plan_id: plan }));
      const portal = expectReached(await caller.call("get_portal_url", { path: { project } }));
      assert.deepEqual(portal.data, (await suite.client.get(`/v1/projects/${project}/distribution/portal-url`)).body.data);
      const refused = await caller.call("get_deep_link", { path: { project }, query: { custom: "auth_x" } });
      assert.equal(!refused.ok && refused.code, "VALIDATION_FAILED");
    });
  });
});
