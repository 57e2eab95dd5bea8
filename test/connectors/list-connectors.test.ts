// GET /v1/connectors over HTTP: the catalog's cards with their installable flag, paginated and
// sorted like every list, behind project-connector:view-any; the same operation is an MCP tool.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startApi, type RunningApi } from "../helpers/server.ts";
import { ApiClient, expectError } from "../helpers/http.ts";
import { createTestCreator, tokenFor, type TestCreator } from "../helpers/fixtures.ts";
import { loadConnectorRegistry } from "../../src/modules/connectors/registry.ts";
import { connectMcp, startMcp } from "../helpers/mcp.ts";
import { connectorsFolder, removeConnectorsFolders, writeFile } from "./connector-folders.ts";

const CATALOG = `
paused: [discord]
upcoming:
  - {key: whatsapp, name: WhatsApp, status: roadmap, category: messaging, tagline: WhatsApp communities, added_at: "2026-10-01"}
  - {key: slack, name: Slack, status: in_development, category: productivity, tagline: Slack channels, added_at: "2026-09-15"}
`;

describe("GET /v1/connectors (list_connectors)", () => {
  let api: RunningApi;
  let creator: TestCreator;
  let client: ApiClient;
  before(async () => {
    const dir = connectorsFolder();
    writeFile(join(dir, "catalog.yaml"), CATALOG);
    api = await startApi({ connectors: loadConnectorRegistry(dir) });
    creator = await createTestCreator({ label: "catalog" });
    client = new ApiClient(api.url, (await tokenFor(creator, ["project-connector:view-any"])).token);
  });
  after(async () => {
    await api.close();
    removeConnectorsFolders();
  });

  it("answers every card, newest first, with installable true only for an available package", async () => {
    const res = await client.get("/v1/connectors");
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.data.map((c: { key: string; status: string; installable: boolean; added_at: string }) => [c.key, c.status, c.installable, c.added_at]),
      [
        ["whatsapp", "roadmap", false, "2026-10-01"],
        ["slack", "in_development", false, "2026-09-15"],
        ["discord", "paused", false, "2024-09-02"],
        ["telegram", "available", true, "2023-03-14"],
      ],
    );
    assert.deepEqual(res.body.meta, { current_page: 1, from: 1, last_page: 1, per_page: 25, to: 4, total: 4 });
    const telegram = res.body.data[3];
    assert.equal(telegram.name, "Telegram");
    assert.equal(telegram.tagline, "Sell paid access to your Telegram channels and groups");
    assert.deepEqual([telegram.install.mode, telegram.install.scopes], ["paste_credential", ["project"]]);
    // The forms a creator fills: the bot token (with the package's :app named), and the settings with a select's choices.
    assert.deepEqual(telegram.install.fields[0], {
      name: "bot_token",
      type: "secret",
      label: "Bot token",
      help: "Your bot token is stored encrypted and only SubBridge uses it.",
      required: true,
      options: [],
      // :app is named; :button is left for the form that shows the steps, which knows its button.
      steps: [
        "Open @BotFather in Telegram and send /newbot.",
        "Choose a name and a username that ends in bot.",
        "Copy the token BotFather sends you, paste it here and press :button.",
      ],
      links: [
        { text: "@BotFather", url: "https://t.me/BotFather" },
        { text: "bot token", url: "https://core.telegram.org/bots/features#botfather" },
      ],
    });
    assert.match(telegram.install.fields[1].steps[2], /^Come back to SubBridge and pick/);
    const language = telegram.install.settings_fields.find((f: { name: string }) => f.name === "language");
    assert.deepEqual(
      language.options.map((o: { value: string }) => o.value),
      ["en", "de", "es", "fr", "pt"],
    );
    assert.deepEqual(telegram.resource_kinds[0], {
      kind: "channel",
      label: "Telegram channel",
      portal_label: "Channel",
      icon: "megaphone",
      grant_mode: "bearer_link",
    });
    assert.equal(telegram.links.support, "mailto:support@subbridge.dev?subject=Telegram%20connector");
    assert.equal(telegram.screenshots.length, 3);
  });

  it("pages with the list envelope's links", async () => {
    const first = await client.get("/v1/connectors?per_page=3");
    assert.deepEqual(first.body.meta, { current_page: 1, from: 1, last_page: 2, per_page: 3, to: 3, total: 4 });
    assert.equal(first.body.links.next, `${api.url}/v1/connectors?per_page=3&page=2`);
    const second = await client.get("/v1/connectors?per_page=3&page=2");
    assert.deepEqual(
      second.body.data.map((c: { key: string }) => c.key),
      ["telegram"],
    );
    assert.deepEqual(second.body.meta, { current_page: 2, from: 4, last_page: 2, per_page: 3, to: 4, total: 4 });
    const past = await client.get("/v1/connectors?page=9");
    assert.deepEqual(past.body.data, []);
    assert.equal(past.body.meta.total, 4);
    const aliased = await client.get("/v1/connectors?limit=1");
    assert.equal(aliased.body.data.length, 1);
  });

  it("sorts by name, key or date, and falls back to the date for other columns", async () => {
    const keys = async (query: string) => (await client.get(`/v1/connectors?${query}`)).body.data.map((c: { key: string }) => c.key);
    assert.deepEqual(await keys("sort_by=name&sort_direction=asc"), ["discord", "slack", "telegram", "whatsapp"]);
    assert.deepEqual(await keys("sort_by=key&sort_direction=desc"), ["whatsapp", "telegram", "slack", "discord"]);
    assert.deepEqual(await keys("sort_by=added_at&sort_direction=asc"), ["telegram", "discord", "slack", "whatsapp"]);
    assert.deepEqual(await keys("sort_by=version"), ["whatsapp", "slack", "discord", "telegram"]);
  });

  it("refuses invalid paging with 422", async () => {
    expectError(await client.get("/v1/connectors?page=0"), 422, "VALIDATION_FAILED");
    expectError(await client.get("/v1/connectors?sort_direction=up"), 422, "VALIDATION_FAILED");
  });

  it("needs project-connector:view-any (403 TOKEN_MISSING_ABILITY naming it)", async () => {
    const narrow = await tokenFor(creator, ["team:view", "project:view-any", "project-connector:view"]);
    const error = expectError(await new ApiClient(api.url, narrow.token).get("/v1/connectors"), 403, "TOKEN_MISSING_ABILITY");
    assert.deepEqual(error.context, { required_ability: "project-connector:view-any" });
    expectError(await new ApiClient(api.url).get("/v1/connectors"), 401, "AUTHENTICATION_REQUIRED");
  });

  it("is the MCP tool list_connectors, read-only, because project-connector:view-any is RM", () => {
    const catalog = JSON.parse(readFileSync(new URL("../../generated/mcp-tools.json", import.meta.url), "utf8"));
    const tool = catalog.tools.find((t: { name: string }) => t.name === "list_connectors");
    assert.ok(tool, "list_connectors is in generated/mcp-tools.json");
    assert.equal(tool.ability, "project-connector:view-any");
    assert.deepEqual(tool.tags, ["Connectors"]);
    assert.deepEqual(tool.operation, { method: "GET", path: "/v1/connectors", success_status: 200 });
    assert.equal(tool.annotations.readOnlyHint, true);
    assert.deepEqual(Object.keys(tool.inputSchema.properties).sort(), ["page", "per_page", "sort_by", "sort_direction"]);
  });

  it("answers the same page through the MCP tool, from the registry the MCP app was given", async () => {
    const dir = connectorsFolder({ telegram: "telegram" });
    writeFile(join(dir, "catalog.yaml"), "paused: [telegram]\n");
    const mcp = await startMcp({ baseUrl: api.url, connectors: loadConnectorRegistry(dir) });
    const mcpClient = await connectMcp(mcp, client.token!);
    try {
      const result = await mcpClient.callTool({ name: "list_connectors", arguments: { per_page: 5 } });
      assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 300));
      const page = result.structuredContent as { data: { key: string; status: string; installable: boolean }[]; meta: { total: number } };
      assert.deepEqual(
        page.data.map((c) => [c.key, c.status, c.installable]),
        [["telegram", "paused", false]],
      );
      assert.equal(page.meta.total, 1);
    } finally {
      await mcpClient.close();
      await mcp.close();
    }
  });
});

describe("GET /v1/connectors with the repository's connectors folder", () => {
  let api: RunningApi;
  before(async () => {
    api = await startApi();
  });
  after(() => api.close());

  it("lists the example packages and the announced connectors of connectors/catalog.yaml", async () => {
    const creator = await createTestCreator({ label: "default-catalog" });
    const res = await new ApiClient(api.url, creator.token).get("/v1/connectors?sort_by=key&sort_direction=asc");
    assert.deepEqual(
      res.body.data.map((c: { key: string; installable: boolean }) => [c.key, c.installable]),
      [
        ["discord", true],
        ["slack", false],
        ["telegram", true],
        ["whatsapp", false],
      ],
    );
  });
});
