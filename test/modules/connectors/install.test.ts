// Installing a connector: POST /v1/projects/{project}/connectors/{connector} over REST and MCP - the
// credentials verified with the (fake) platform and sealed, the settings checked by the manifest's
// rules, the refusals in the order the spec gives, the activity entry and connector.installed.
import assert from "node:assert/strict";
import { decrypt } from "../../../src/security/crypto.ts";
import { credentialsBinding } from "../../../src/modules/connectors/environment.ts";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { createTestCreator, tokenFor } from "../../helpers/fixtures.ts";
import { startApi, TEST_APP_KEY } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { newDiscordAuthorization, newTelegramBot, PORTAL_URL, testPlatform } from "../../helpers/platforms.ts";
import { startFakePlatform } from "../../../src/simulators/platforms/fake-platform.ts";
import { fakePlatformEndpoints } from "../../../src/outside/platforms.ts";
import { expectReached } from "../../tenancy/callers.ts";
import { installationRow, installPath, installTelegram, newProject, useMcpBeside } from "./support.ts";

const DISCORD_REDIRECT = "https://app.example.test/connectors/discord/callback";

/** What a refused install must leave alone: no installation, no entry, no event. */
async function nothingWritten(teamId: string, project: string) {
  const { db } = await testDatabase();
  assert.equal(await installationRow(project), undefined, "no installation was written");
  assert.equal((await db("activity_log").where({ team_id: teamId, project_id: project }).where("event", "like", "connector_%")).length, 0);
  assert.equal((await eventsOf(teamId)).filter((e) => e.project_id === project && e.type.startsWith("connector.")).length, 0);
}

describe("installing a connector", () => {
  const suite = useApiWithCreator({ creator: { label: "install" } });

  it("installs Telegram: the bot named by getMe, the token sealed to the installation, settings defaulted, the entry and the event [claim telegram.install.bot_token]", async () => {
    const project = await newProject(suite.creator);
    const bot = await newTelegramBot("owls");
    const fake = await testPlatform();
    const before = fake.calls.length;
    const res = await suite.client.post(installPath(project), { fields: { bot_token: bot.token }, settings: { accept_stars: true } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const installation = res.body.data;
    assert.equal(installation.connector, "telegram");
    assert.equal(installation.project_id, project);
    assert.equal(installation.status, "active");
    assert.equal(installation.platform_account_id, String(bot.id));
    assert.equal(installation.platform_account_name, bot.username);
    assert.equal(installation.bot_url, `https://t.me/${bot.username}`);
    // language is a required select: it takes its first option when not given.
    assert.deepEqual(installation.settings, { language: "en", accept_stars: true });
    assert.equal(installation.created_by_user_id, suite.creator.userId);
    assert.ok(!JSON.stringify(res.body).includes(bot.token), "the token is never returned");
    assert.deepEqual(
      fake.calls.slice(before).map((c) => [c.platform, c.name, c.bot]),
      [
        ["telegram", "getMe", String(bot.id)],
        ["telegram", "setWebhook", String(bot.id)],
        // The members' command menu for every private chat (issue 46).
        ["telegram", "setMyCommands", String(bot.id)],
      ],
    );

    const row = await installationRow(project);
    assert.ok(!row.credentials.includes(bot.token), "the token is not stored in clear");
    assert.deepEqual(JSON.parse(decrypt(TEST_APP_KEY, row.credentials, credentialsBinding(installation.id))), { bot_token: bot.token });
    assert.throws(() => decrypt(TEST_APP_KEY, row.credentials, credentialsBinding(project)), "the sealed token opens only for its installation");

    const { db } = await testDatabase();
    const entries = await db("activity_log").where({ team_id: suite.creator.teamId, project_id: project, event: "connector_installed" });
    assert.equal(entries.length, 1);
    assert.equal(entries[0].subject_type, "project");
    assert.equal(entries[0].subject_id, project);
    assert.equal(entries[0].actor_kind, "api_token");
    assert.ok(!JSON.stringify(entries[0]).includes(bot.token), "the activity entry holds no credential");
    const events = (await eventsOf(suite.creator.teamId, "connector.installed")).filter((e) => e.project_id === project);
    assert.equal(events.length, 1);
    assertValidEvent(events[0]!);
    assert.deepEqual(events[0]!.data, { installation });
    assert.ok(!JSON.stringify(events[0]).includes(bot.token), "the event holds no credential");
  });

  it("lists what the project runs, newest first, without credentials", async () => {
    const project = await newProject(suite.creator);
    const empty = await suite.client.get(`/v1/projects/${project}/connectors`);
    assert.equal(empty.status, 200);
    assert.deepEqual(empty.body.data, []);
    assert.equal(empty.body.meta.total, 0);
    const { installation } = await installTelegram(suite.client, project);
    const listed = await suite.client.get(`/v1/projects/${project}/connectors?sort_by=connector&sort_direction=asc`);
    assert.deepEqual(listed.body.data, [installation]);
    assert.equal(listed.body.meta.total, 1);
  });

  it("refuses an unknown key (404 unknown_connector), an announced connector (422 CONNECTOR_UNAVAILABLE) and a second install of the same one", async () => {
    const project = await newProject(suite.creator);
    const bot = await newTelegramBot();
    const body = { fields: { bot_token: bot.token } };
    const unknown = expectError(await suite.client.post(installPath(project, "myspace"), body), 404, "RESOURCE_NOT_FOUND");
    assert.deepEqual(unknown.context, { reason: "unknown_connector", connector: "myspace" });
    for (const key of ["whatsapp", "slack"]) {
      const error = expectError(await suite.client.post(installPath(project, key), body), 422, "CONNECTOR_UNAVAILABLE");
      assert.deepEqual(error.context, { connector: key });
    }
    await nothingWritten(suite.creator.teamId, project);
    await installTelegram(suite.client, project);
    const twice = expectError(await suite.client.post(installPath(project), body), 422, "VALIDATION_FAILED");
    assert.deepEqual(twice.context, { reason: "already_installed", connector: "telegram", project_id: project });
  });

  it("connects a bot to one project only, whichever team asks; the project that runs it may present its token again", async () => {
    const first = await newProject(suite.creator);
    const { installation, bot } = await installTelegram(suite.client, first);
    const second = await newProject(suite.creator);
    const other = await createTestCreator({ label: "install-bot-thief" });
    for (const [client, project] of [
      [suite.client, second],
      [new ApiClient(suite.api.url, other.token), other.projectIds[0]!],
    ] as const) {
      const error = expectError(await client.post(installPath(project), { fields: { bot_token: bot.token } }), 422, "VALIDATION_FAILED");
      assert.deepEqual(Object.keys(error.fields), ["fields.bot_token"]);
      assert.equal(await installationRow(project), undefined);
    }
    const again = await suite.client.request("PATCH", installPath(first), { body: { fields: { bot_token: bot.token } } });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.bot_url, installation.bot_url);
  });

  it("refuses a paused connector with 422 CONNECTOR_UNAVAILABLE", async () => {
    const { loadConnectorRegistry } = await import("../../../src/modules/connectors/registry.ts");
    const { DEFAULT_CONNECTORS_DIR } = await import("../../../src/config.ts");
    const real = loadConnectorRegistry(DEFAULT_CONNECTORS_DIR);
    const paused = {
      ...real,
      card: (key: string) => (key === "telegram" ? { ...real.card(key)!, status: "paused" as const, installable: false } : real.card(key)),
    };
    const api = await startApi({ connectors: paused });
    try {
      const project = await newProject(suite.creator);
      const error = expectError(
        await new ApiClient(api.url, suite.creator.token).post(installPath(project), { fields: { bot_token: (await newTelegramBot()).token } }),
        422,
        "CONNECTOR_UNAVAILABLE",
      );
      assert.deepEqual(error.context, { connector: "telegram" });
      await nothingWritten(suite.creator.teamId, project);
    } finally {
      await api.close();
    }
  });

  it("installs Discord through OAuth: the code exchanged for the server, the bot checked, no credential stored, the portal entry as its bot URL", async () => {
    const project = await newProject(suite.creator);
    const { code, guild } = await newDiscordAuthorization();
    const res = await suite.client.post(installPath(project, "discord"), { oauth: { code, redirect_uri: DISCORD_REDIRECT } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.data.platform_account_id, guild.id);
    assert.equal(res.body.data.platform_account_name, guild.name);
    assert.equal(res.body.data.bot_url, `${PORTAL_URL}/connectors/discord/${res.body.data.id}`);
    assert.deepEqual(res.body.data.settings, { removal_behaviour: "remove_roles" });
    assert.equal((await installationRow(project, "discord")).credentials, null);
    const exchange = (await testPlatform()).calls.find((c) => c.name === "/oauth2/token" && c.params.code === code);
    assert.equal(exchange?.params.redirect_uri, DISCORD_REDIRECT);
    // Codes are single use: the same code cannot install Discord on another project.
    const other = await newProject(suite.creator);
    const reused = expectError(
      await suite.client.post(installPath(other, "discord"), { oauth: { code, redirect_uri: DISCORD_REDIRECT } }),
      422,
      "VALIDATION_FAILED",
    );
    assert.ok(reused.fields["oauth.code"], JSON.stringify(reused));
  });

  it("runs two distinct connectors on Growth, and refuses the second below Growth with 403 CONNECTOR_TIER_REQUIRED", async () => {
    const growthProject = await newProject(suite.creator);
    await installTelegram(suite.client, growthProject);
    const discord = await newDiscordAuthorization();
    const second = await suite.client.post(installPath(growthProject, "discord"), { oauth: { code: discord.code, redirect_uri: DISCORD_REDIRECT } });
    assert.equal(second.status, 201, JSON.stringify(second.body));

    const starter = await createTestCreator({ tier: "starter", label: "install-starter" });
    const client = new ApiClient(suite.api.url, starter.token);
    const project = starter.projectIds[0]!;
    await installTelegram(client, project);
    const other = await newDiscordAuthorization();
    const refused = expectError(
      await client.post(installPath(project, "discord"), { oauth: { code: other.code, redirect_uri: DISCORD_REDIRECT } }),
      403,
      "CONNECTOR_TIER_REQUIRED",
    );
    assert.deepEqual(refused.context, { connector: "discord", project_id: project, required_tier: "growth", current_tier: "starter" });
    assert.equal(await installationRow(project, "discord"), undefined);
    // A single connector needs no tier.
    const free = await createTestCreator({ tier: "free", label: "install-free" });
    await installTelegram(new ApiClient(suite.api.url, free.token), free.projectIds[0]!);
  });

  it("answers 422 with dotted fields for bad install fields and settings, and names the credential Telegram refuses", async () => {
    const project = await newProject(suite.creator);
    const bot = await newTelegramBot();
    const cases: [unknown, string[]][] = [
      [{}, ["fields.bot_token"]],
      [{ fields: { bot_token: "not-a-token" } }, ["fields.bot_token"]],
      [{ fields: { bot_token: bot.token, add_to_places: "x", nope: true } }, ["fields.add_to_places", "fields.nope"]],
      [
        { fields: { bot_token: bot.token }, settings: { language: "xx", accept_stars: "yes", terms_url: "http://example.com/terms", colour: "red" } },
        ["settings.accept_stars", "settings.colour", "settings.language", "settings.terms_url"],
      ],
      [{ fields: { bot_token: bot.token }, settings: { terms_url: `https://example.com/${"t".repeat(260)}` } }, ["settings.terms_url"]],
      [{ fields: { bot_token: bot.token }, oauth: { code: "x", redirect_uri: DISCORD_REDIRECT } }, ["oauth"]],
      [{ fields: { bot_token: bot.token }, settings: { welcome_message: "w".repeat(5000) } }, ["settings.welcome_message"]],
    ];
    for (const [body, fields] of cases) {
      const error = expectError(await suite.client.post(installPath(project), body), 422, "VALIDATION_FAILED");
      assert.deepEqual(Object.keys(error.fields ?? {}).sort(), fields, JSON.stringify(error));
    }
    // Well-formed, but no bot has this token: Telegram answers 401 and the field is named.
    const unknownBot = `123456789:${"A".repeat(35)}`;
    const refused = expectError(await suite.client.post(installPath(project), { fields: { bot_token: unknownBot } }), 422, "VALIDATION_FAILED");
    assert.deepEqual(Object.keys(refused.fields), ["fields.bot_token"]);
    assert.match(refused.fields["fields.bot_token"][0], /Telegram refused the bot token/);
    assert.ok(!JSON.stringify(refused).includes(unknownBot), "the refusal does not echo the token");
    // Discord without the OAuth result.
    const discord = expectError(await suite.client.post(installPath(project, "discord"), {}), 422, "VALIDATION_FAILED");
    assert.deepEqual(Object.keys(discord.fields), ["oauth"]);
    await nothingWritten(suite.creator.teamId, project);
  });

  it("answers 422 platform_unreachable when the platform does not answer in time, and writes nothing", async () => {
    const slow = await startFakePlatform();
    const bot = { token: `987654321:${"B".repeat(35)}` };
    slow.addTelegramBot(bot.token, { id: 987654321, username: "slow_bot" });
    slow.delay(1_000);
    const api = await startApi({ platforms: { ...fakePlatformEndpoints(slow), timeoutMs: 200 } });
    try {
      const project = await newProject(suite.creator);
      const error = expectError(
        await new ApiClient(api.url, suite.creator.token).post(installPath(project), { fields: { bot_token: bot.token } }),
        422,
        "VALIDATION_FAILED",
      );
      assert.deepEqual(error.context, { connector: "telegram", reason: "platform_unreachable" });
      await nothingWritten(suite.creator.teamId, project);
      await slow.close();
      const closed = expectError(
        await new ApiClient(api.url, suite.creator.token).post(installPath(project), { fields: { bot_token: bot.token } }),
        422,
        "VALIDATION_FAILED",
      );
      assert.equal(closed.context.reason, "platform_unreachable");
    } finally {
      await api.close();
      await slow.close();
    }
  });

  it("needs project-connector:create (403), a credential (401), and answers 404 for another team's project", async () => {
    const project = await newProject(suite.creator);
    const body = { fields: { bot_token: (await newTelegramBot()).token } };
    const reader = await tokenFor(suite.creator, ["project-connector:view-any", "project-connector:view"]);
    const missing = expectError(await suite.client.post(installPath(project), body, { token: reader.token }), 403, "TOKEN_MISSING_ABILITY");
    assert.equal(missing.context.required_ability, "project-connector:create");
    expectError(await new ApiClient(suite.api.url).post(installPath(project), body), 401, "AUTHENTICATION_REQUIRED");
    const other = await createTestCreator({ label: "install-other" });
    expectError(await new ApiClient(suite.api.url, other.token).post(installPath(project), body), 404, "RESOURCE_NOT_FOUND");
    await nothingWritten(suite.creator.teamId, project);
  });
});

describe("installing a connector over MCP (install_connector)", () => {
  const suite = useApiWithCreator({ creator: { label: "install-mcp" } });
  const mcp = useMcpBeside(suite);

  it("installs with the tool, records the invocation as mcp, and refuses an unknown key with the same envelope", async () => {
    const caller = await mcp.creator();
    const project = await newProject(suite.creator);
    const bot = await newTelegramBot();
    const body = expectReached(
      await caller.call("install_connector", { path: { project, connector: "telegram" }, body: { fields: { bot_token: bot.token } } }),
    );
    assert.equal(body.data.bot_url, `https://t.me/${bot.username}`);
    const { db } = await testDatabase();
    const entry = await db("activity_log").where({ project_id: project, event: "connector_installed" }).first();
    assert.equal(entry.actor_kind, "mcp");
    const everything = await db("activity_log").where({ team_id: suite.creator.teamId }).select("*");
    assert.ok(everything.length > 1 && !JSON.stringify(everything).includes(bot.token), "no entry (the tool invocation included) holds the token");
    const unknown = await caller.call("install_connector", { path: { project, connector: "myspace" }, body: {} });
    assert.equal(unknown.ok, false);
    assert.equal(!unknown.ok && unknown.code, "RESOURCE_NOT_FOUND");
  });
});
