// The routes of one installation: GET, PATCH (settings merged and checked, credentials replaced
// after the platform verifies them) and DELETE, with CONNECTOR_NOT_INSTALLED on each for a
// connector the project does not run, their activity entries and events.
import assert from "node:assert/strict";
import { decrypt } from "../../../src/security/crypto.ts";
import { credentialsBinding } from "../../../src/modules/connectors/environment.ts";
import { ApiClient, expectError, type TestResponse } from "../../helpers/http.ts";
import { createTestCreator, tokenFor } from "../../helpers/fixtures.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { newDiscordAuthorization, newTelegramBot } from "../../helpers/platforms.ts";
import { installationRow, installPath, installTelegram, newProject } from "./support.ts";

const patch = (client: ApiClient, path: string, body: unknown, token?: string): Promise<TestResponse> =>
  client.request("PATCH", path, { body, ...(token ? { token } : {}) });

async function projectEvents(teamId: string, project: string, type: string) {
  return (await eventsOf(teamId, type)).filter((e) => e.project_id === project);
}

describe("a project's installation of a connector", () => {
  const suite = useApiWithCreator({ creator: { label: "installation" } });

  it("answers 404 CONNECTOR_NOT_INSTALLED on GET, PATCH and DELETE for a connector the project does not run, and unknown_connector for no connector", async () => {
    const project = await newProject(suite.creator);
    for (const key of ["telegram", "discord", "whatsapp"]) {
      const answers = [
        await suite.client.get(installPath(project, key)),
        await patch(suite.client, installPath(project, key), { settings: { language: "de" } }),
        await suite.client.delete(installPath(project, key)),
      ];
      for (const res of answers) {
        const error = expectError(res, 404, "CONNECTOR_NOT_INSTALLED");
        assert.deepEqual(error.context, { connector: key, project_id: project });
      }
    }
    const unknown = expectError(await suite.client.get(installPath(project, "myspace")), 404, "RESOURCE_NOT_FOUND");
    assert.equal(unknown.context.reason, "unknown_connector");
  });

  it("reads the installation as it was installed", async () => {
    const project = await newProject(suite.creator);
    const { installation } = await installTelegram(suite.client, project, { welcome_message: "Hi" });
    const res = await suite.client.get(installPath(project));
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, installation);
  });

  it("merges settings (null clears one), checks the merged whole, and emits connector.updated with an entry", async () => {
    const project = await newProject(suite.creator);
    const { installation } = await installTelegram(suite.client, project, { welcome_message: "Hi", accept_stars: true });
    const res = await patch(suite.client, installPath(project), {
      settings: { welcome_message: null, language: "de", terms_url: "https://example.com/terms" },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.data.settings, { language: "de", accept_stars: true, terms_url: "https://example.com/terms" });
    assert.equal(res.body.data.bot_url, installation.bot_url);
    assert.deepEqual(res.body.data, (await suite.client.get(installPath(project))).body.data);

    const refused = expectError(
      await patch(suite.client, installPath(project), { settings: { language: null, nope: "x" } }),
      422,
      "VALIDATION_FAILED",
    );
    assert.deepEqual(Object.keys(refused.fields).sort(), ["settings.language", "settings.nope"]);
    expectError(await patch(suite.client, installPath(project), {}), 422, "VALIDATION_FAILED");

    const events = await projectEvents(suite.creator.teamId, project, "connector.updated");
    assert.equal(events.length, 1, "refused changes emit nothing");
    assertValidEvent(events[0]!);
    assert.deepEqual(events[0]!.data, { installation: res.body.data, changed: ["settings"] });
    const { db } = await testDatabase();
    const entries = await db("activity_log").where({ project_id: project, event: "connector_updated" });
    assert.equal(entries.length, 1);
    assert.deepEqual(entries[0].properties.changed, ["settings"]);
  });

  it("replaces the bot token after Telegram verifies it: a new bot changes bot_url; a refused token changes nothing", async () => {
    const project = await newProject(suite.creator);
    const { installation, bot } = await installTelegram(suite.client, project);
    const refused = expectError(
      await patch(suite.client, installPath(project), { fields: { bot_token: `111111111:${"C".repeat(35)}` } }),
      422,
      "VALIDATION_FAILED",
    );
    assert.deepEqual(Object.keys(refused.fields), ["fields.bot_token"]);
    assert.deepEqual((await suite.client.get(installPath(project))).body.data, installation);

    const next = await newTelegramBot("next");
    const res = await patch(suite.client, installPath(project), { fields: { bot_token: next.token }, settings: { language: "fr" } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.bot_url, `https://t.me/${next.username}`);
    assert.equal(res.body.data.platform_account_id, String(next.id));
    const row = await installationRow(project);
    assert.deepEqual(JSON.parse(decrypt(TEST_APP_KEY, row.credentials, credentialsBinding(installation.id))), { bot_token: next.token });
    const [event] = await projectEvents(suite.creator.teamId, project, "connector.updated");
    assert.deepEqual(event!.data.changed, ["settings", "credentials"]);
    for (const token of [bot.token, next.token]) assert.ok(!JSON.stringify(event).includes(token), "the event holds no credential");
    const { db } = await testDatabase();
    const entry = await db("activity_log").where({ project_id: project, event: "connector_updated" }).first();
    assert.ok(!JSON.stringify(entry).includes(next.token), "the entry holds no credential");
  });

  it("refuses new install fields for an OAuth connector (re-authorising is an uninstall and an install)", async () => {
    const project = await newProject(suite.creator);
    const { code } = await newDiscordAuthorization();
    await suite.client.post(installPath(project, "discord"), { oauth: { code, redirect_uri: "https://app.example.test/cb" } });
    const error = expectError(await patch(suite.client, installPath(project, "discord"), { fields: {} }), 422, "VALIDATION_FAILED");
    assert.deepEqual(Object.keys(error.fields), ["fields"]);
    const ok = await patch(suite.client, installPath(project, "discord"), {
      settings: { removal_behaviour: "kick", log_channel_id: "123456789012345678" },
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const bad = expectError(
      await patch(suite.client, installPath(project, "discord"), { settings: { log_channel_id: "12" } }),
      422,
      "VALIDATION_FAILED",
    );
    assert.deepEqual(Object.keys(bad.fields), ["settings.log_channel_id"]);
  });

  it("uninstalls: 204, connector.uninstalled with the installation as it was, an entry; the connector can be installed again", async () => {
    const project = await newProject(suite.creator);
    const { installation } = await installTelegram(suite.client, project);
    const res = await suite.client.delete(installPath(project));
    assert.equal(res.status, 204);
    assert.equal(await installationRow(project), undefined);
    expectError(await suite.client.get(installPath(project)), 404, "CONNECTOR_NOT_INSTALLED");
    expectError(await suite.client.delete(installPath(project)), 404, "CONNECTOR_NOT_INSTALLED");
    const [event] = await projectEvents(suite.creator.teamId, project, "connector.uninstalled");
    assertValidEvent(event!);
    assert.deepEqual(event!.data, { installation });
    const { db } = await testDatabase();
    assert.equal((await db("activity_log").where({ project_id: project, event: "connector_uninstalled" })).length, 1);
    await installTelegram(suite.client, project);
  });

  it("checks each route's ability (403), the credential (401), and another team's project (404)", async () => {
    const project = await newProject(suite.creator);
    await installTelegram(suite.client, project);
    const none = await tokenFor(suite.creator, ["team:view"]);
    const anonymous = new ApiClient(suite.api.url);
    const other = new ApiClient(suite.api.url, (await createTestCreator({ label: "installation-other" })).token);
    const calls: [string, (c: ApiClient, token?: string) => Promise<TestResponse>][] = [
      ["project-connector:view-any", (c, t) => c.get(`/v1/projects/${project}/connectors`, t ? { token: t } : {})],
      ["project-connector:view", (c, t) => c.get(installPath(project), t ? { token: t } : {})],
      ["project-connector:update", (c, t) => patch(c, installPath(project), { settings: { language: "de" } }, t)],
      ["project-connector:delete", (c, t) => c.delete(installPath(project), t ? { token: t } : {})],
    ];
    for (const [ability, call] of calls) {
      const error = expectError(await call(suite.client, none.token), 403, "TOKEN_MISSING_ABILITY");
      assert.equal(error.context.required_ability, ability);
      expectError(await call(anonymous), 401, "AUTHENTICATION_REQUIRED");
      expectError(await call(other), 404, "RESOURCE_NOT_FOUND");
    }
    assert.ok(await installationRow(project), "the refused calls left the installation alone");
    const badSort = await suite.client.get(`/v1/projects/${project}/connectors?per_page=0`);
    expectError(badSort, 422, "VALIDATION_FAILED");
  });
});
