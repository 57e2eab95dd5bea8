// Loading the connector packages: the repository's examples load, and their cards show the English
// text of lang/en.json.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_CONNECTORS_DIR, loadConfig } from "../../src/config.ts";
import { loadConnectorRegistry } from "../../src/modules/connectors/registry.ts";
import { openapi } from "../helpers/http.ts";
import { connectorsFolder, editJson, removeConnectorsFolders } from "./connector-folders.ts";

describe("connector registry", () => {
  after(removeConnectorsFolders);

  it("loads the repository's example packages and announced connectors", () => {
    const registry = loadConnectorRegistry(DEFAULT_CONNECTORS_DIR);
    assert.deepEqual([...registry.packages.keys()].sort(), ["discord", "telegram"]);
    assert.deepEqual(
      registry.cards.map((c) => [c.key, c.status, c.installable]),
      [
        ["discord", "available", true],
        ["slack", "in_development", false],
        ["telegram", "available", true],
        ["whatsapp", "roadmap", false],
      ],
    );
    const telegram = registry.card("telegram")!;
    assert.equal(telegram.name, "Telegram");
    assert.equal(telegram.version, "2.5.0");
    assert.deepEqual([telegram.install!.mode, telegram.install!.scopes], ["paste_credential", ["project"]]);
    // The forms a creator fills: the bot token (with the package's :app named), and the settings with a select's choices.
    assert.deepEqual(telegram.install!.fields[0], {
      name: "bot_token",
      type: "secret",
      label: "Bot token",
      help: "Your bot token is stored encrypted and only SubBridge uses it.",
      required: true,
      options: [],
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
    const language = telegram.install!.settings_fields.find((f: { name: string }) => f.name === "language");
    assert.deepEqual(
      language!.options.map((o: { value: string }) => o.value),
      ["en", "de", "es", "fr", "pt"],
    );
    assert.deepEqual(telegram.portal_cta, { label: "Open in Telegram", icon: "telegram" });
    assert.equal(telegram.marketing?.native_payment, "Telegram Stars");
    assert.equal(telegram.added_at, "2023-03-14");
    assert.equal(registry.card("discord")!.marketing?.native_payment, undefined, "no native payment word, no key");
    assert.equal(registry.card("nope"), undefined);
  });

  it("defaults CONNECTORS_DIR to the repository's folder (found from the source) and resolves a relative one", () => {
    assert.equal(DEFAULT_CONNECTORS_DIR, fileURLToPath(new URL("../../connectors", import.meta.url)));
    assert.equal(loadConfig({}).connectorsDir, DEFAULT_CONNECTORS_DIR);
    assert.equal(loadConfig({ CONNECTORS_DIR: "some/where" }).connectorsDir, join(process.cwd(), "some/where"));
  });

  it("shows the English translation of every creator-readable string, not the key", () => {
    const dir = connectorsFolder({ telegram: "telegram" });
    editJson(join(dir, "telegram/lang/en.json"), (en) => {
      en["Telegram"] = "Telegram (bot)";
      en["Sell paid access to your Telegram channels and groups"] = "Paid Telegram channels and groups";
      en["Telegram channel"] = "Channel on Telegram";
      en["Telegram creators"] = "creators on Telegram";
      en["Open in Telegram"] = "Open the bot";
    });
    const card = loadConnectorRegistry(dir).card("telegram")!;
    assert.equal(card.name, "Telegram (bot)");
    assert.equal(card.tagline, "Paid Telegram channels and groups");
    assert.equal(card.resource_kinds[0]!.label, "Channel on Telegram");
    assert.equal(card.marketing!.audience, "creators on Telegram");
    assert.equal(card.portal_cta!.label, "Open the bot");
  });

  it("fills what a manifest leaves out: the button's icon is the connector's own, no marketing is null", () => {
    const dir = connectorsFolder({ telegram: "telegram" });
    editJson(join(dir, "telegram/connector.json"), (m) => {
      delete m.listing.portal_cta.icon;
      delete m.listing.marketing;
      delete m.listing.sign_in_required;
      delete m.listing.changelog_url;
      delete m.capabilities;
    });
    const card = loadConnectorRegistry(dir).card("telegram")!;
    assert.deepEqual(card.portal_cta, { label: "Open in Telegram", icon: "telegram" });
    assert.equal(card.marketing, null);
    assert.equal(card.sign_in_required, false);
    assert.equal(card.changelog_url, null);
    assert.deepEqual(card.capabilities, []);
  });

  it("loads an empty folder as an empty catalog", () => {
    const registry = loadConnectorRegistry(connectorsFolder({}));
    assert.equal(registry.packages.size, 0);
    assert.deepEqual(registry.cards, []);
  });

  it("keeps the card schema's enums equal to the manifest schema's", () => {
    const manifest = JSON.parse(readFileSync(new URL("../../spec/connector.schema.json", import.meta.url), "utf8"));
    const schemas = openapi.components.schemas;
    const defs = manifest.$defs;
    assert.deepEqual(schemas.ConnectorCategory.enum, defs.listing.properties.category.enum);
    assert.deepEqual(schemas.ConnectorCapability.enum, defs.capability.enum);
    assert.deepEqual(schemas.ConnectorInstall.properties.mode.enum, defs.install.properties.mode.enum);
    assert.deepEqual(schemas.ConnectorInstall.properties.scopes.items.enum, defs.install.properties.scopes.items.enum);
    assert.deepEqual(schemas.ConnectorResourceKind.properties.grant_mode.enum, defs.resource_kind.properties.grant_mode.enum);
    assert.deepEqual(schemas.ConnectorKey.pattern, manifest.properties.key.pattern);
    assert.deepEqual(Object.keys(schemas.ConnectorLinks.properties), Object.keys(defs.listing.properties.links.properties));
    assert.deepEqual(Object.keys(schemas.ConnectorMarketing.properties), Object.keys(defs.marketing.properties));
  });
});
