// An invalid connector package refuses the start: the schema's problems (all of them, with the
// SDK's wording) and the rules that span files, each named by file and JSON pointer.
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { loadConnectorRegistry } from "../../src/modules/connectors/registry.ts";
import { connectorsFolder, editJson, expectProblems, removeConnectorsFolders, writeFile } from "./connector-folders.ts";

describe("connector package rules", () => {
  after(removeConnectorsFolders);

  it("lists every schema problem of connector.json, each as <pointer>: <message>", () => {
    const dir = connectorsFolder();
    editJson(join(dir, "telegram/connector.json"), (m) => {
      m.listing.tagline = "x".repeat(93);
      m.status = "available";
      delete m.vendor;
      m.install.fields[0].links["@BotFather"] = "http://t.me/BotFather";
    });
    const error = expectProblems(dir, [
      { file: "telegram/connector.json", pointer: "/listing/tagline", message: "listing.tagline must be at most 80 characters (it has 93)" },
      { file: "telegram/connector.json", pointer: "/status", message: /^the manifest has an unknown property "status"/ },
      { file: "telegram/connector.json", pointer: "/vendor", message: "the manifest is missing required property vendor" },
      { file: "telegram/connector.json", pointer: "/install/fields/0/links/@BotFather", message: /must be an https URL .* or a mailto address/ },
    ]);
    assert.match(error.message, /telegram\/connector\.json is invalid:\n  \//);
  });

  it("reports connector.json that is not JSON, with where it broke", () => {
    const dir = connectorsFolder();
    writeFile(join(dir, "discord/connector.json"), '{\n  "key": "discord",\n}\n');
    expectProblems(dir, [{ file: "discord/connector.json", pointer: "", message: /^the file is not valid JSON: .*\(line 3, column 1\)$/ }]);
  });

  it("refuses a package whose folder is not named after its key", () => {
    const dir = connectorsFolder({ telegram: "telegram", "discord-bot": "discord" });
    expectProblems(dir, [
      {
        file: "discord-bot/connector.json",
        pointer: "/key",
        message: 'the key "discord" differs from the package\'s folder name "discord-bot"; rename one so they match',
      },
    ]);
  });

  it("refuses a key claimed twice, blaming the package outside the folder of that name", () => {
    const dir = connectorsFolder({ "a-telegram": "telegram", telegram: "telegram", discord: "discord" });
    expectProblems(dir, [
      { file: "a-telegram/connector.json", pointer: "/key", message: /differs from the package's folder name "a-telegram"/ },
      {
        file: "a-telegram/connector.json",
        pointer: "/key",
        message: `the key "telegram" is already used by ${join(dir, "telegram/connector.json")}; every connector key is unique`,
      },
    ]);
  });

  it("refuses a key claimed twice when neither folder carries its name", () => {
    const dir = connectorsFolder({ "tg-1": "telegram", "tg-2": "telegram" });
    expectProblems(dir, [
      { file: "tg-1/connector.json", pointer: "/key", message: /folder name "tg-1"/ },
      { file: "tg-2/connector.json", pointer: "/key", message: /folder name "tg-2"/ },
      { file: "tg-2/connector.json", pointer: "/key", message: /^the key "telegram" is already used by .*tg-1\/connector\.json/ },
    ]);
  });

  it("refuses a creator-readable string without an entry in lang/en.json, wherever it is", () => {
    const dir = connectorsFolder();
    editJson(join(dir, "discord/lang/en.json"), (en) => {
      delete en["Discord"];
      delete en["Manage Server"];
      delete en["Remove the paid roles only"];
      delete en["Press :button and sign in to Discord."];
      delete en["Role"];
      delete en["Discord account"];
      delete en["Open in Discord"];
    });
    editJson(join(dir, "telegram/connector.json"), (m) => {
      m.listing.overview = "A new overview nobody translated, long enough to be shortened in the message.";
    });
    expectProblems(dir, [
      { file: "discord/connector.json", pointer: "/name", message: '"Discord" has no translation in lang/en.json' },
      {
        file: "discord/connector.json",
        pointer: "/install/fields/0/links/Manage Server",
        message: '"Manage Server" has no translation in lang/en.json',
      },
      {
        file: "discord/connector.json",
        pointer: "/install/fields/0/steps/0",
        message: /^"Press :button and sign in to Discord\." has no translation/,
      },
      { file: "discord/connector.json", pointer: "/install/settings_fields/1/options/remove_roles", message: /^"Remove the paid roles only" has no/ },
      { file: "discord/connector.json", pointer: "/resource_kinds/0/portal_label", message: '"Role" has no translation in lang/en.json' },
      { file: "discord/connector.json", pointer: "/listing/marketing/identity", message: '"Discord account" has no translation in lang/en.json' },
      { file: "discord/connector.json", pointer: "/listing/portal_cta/label", message: '"Open in Discord" has no translation in lang/en.json' },
      {
        file: "telegram/connector.json",
        pointer: "/listing/overview",
        message: /^"A new overview nobody translated, long enough to be \w+\.\.\." has no translation/,
      },
    ]);
  });

  it("refuses field rules it cannot parse, a repeated resource kind and select options the in: rule contradicts, each with its fix", () => {
    const dir = connectorsFolder({ telegram: "telegram" });
    editJson(join(dir, "telegram/connector.json"), (m) => {
      m.install.fields[0].rules = ["required", "maxx:5", "regex:/[/"];
      m.install.settings_fields[0].rules = ["nullable", "max:many"];
      m.install.settings_fields[1].rules = ["required", "in:en,de,es,fr,it"];
      m.resource_kinds.push({ ...m.resource_kinds[0] });
    });
    const error = expectProblems(dir, [
      { file: "telegram/connector.json", pointer: "/install/fields/0/rules/1", message: 'the rule "maxx:5" is not part of the rule language' },
      { file: "telegram/connector.json", pointer: "/install/fields/0/rules/2", message: /^the rule "regex:\/\[\/" is not a valid pattern: / },
      { file: "telegram/connector.json", pointer: "/install/settings_fields/0/rules/1", message: 'the rule "max:many" needs a whole number' },
      {
        file: "telegram/connector.json",
        pointer: "/install/settings_fields/1/options/pt",
        message: 'the option "pt" is not allowed by the rule "in:en,de,es,fr,it", so choosing it is refused',
      },
      {
        file: "telegram/connector.json",
        pointer: "/install/settings_fields/1/rules/1",
        message: 'the rule "in:en,de,es,fr,it" allows "it", which no option offers',
      },
      {
        file: "telegram/connector.json",
        pointer: "/resource_kinds/3/kind",
        message: 'the resource kind "channel" is already declared at /resource_kinds/0',
      },
    ]);
    // Each line ends with the fix.
    assert.match(
      error.message,
      /\/install\/fields\/0\/rules\/1: the rule "maxx:5" is not part of the rule language — did you mean max\? use one of required, /,
    );
    assert.match(error.message, /\/resource_kinds\/3\/kind: .* — give each resource kind its own name or remove the repeat/);
  });

  it("refuses a missing, broken or non-string lang/en.json", () => {
    const dir = connectorsFolder({ telegram: "telegram", discord: "discord", "discord-2": "discord" });
    rmSync(join(dir, "telegram/lang/en.json"));
    writeFile(join(dir, "discord/lang/en.json"), '{"Discord": "Discord",}');
    editJson(join(dir, "discord-2/lang/en.json"), (en) => {
      en["Discord"] = "";
      en["Role"] = 7;
    });
    expectProblems(dir, [
      { file: "telegram/lang/en.json", pointer: "", message: "the file is missing; every string a creator reads is translated here" },
      { file: "discord/lang/en.json", pointer: "", message: /^the file is not valid JSON: / },
      { file: "discord-2/lang/en.json", pointer: "/Discord", message: "must be a non-empty string (the English text)" },
      { file: "discord-2/lang/en.json", pointer: "/Role", message: "must be a non-empty string (the English text)" },
      { file: "discord-2/connector.json", pointer: "/key", message: /differs from the package's folder name "discord-2"/ },
      { file: "discord-2/connector.json", pointer: "/key", message: /already used by .*discord\/connector\.json/ },
    ]);
  });

  it("holds the card's translations to the rules of their keys (tagline length, lower-case words)", () => {
    const dir = connectorsFolder({ telegram: "telegram" });
    editJson(join(dir, "telegram/lang/en.json"), (en) => {
      en["Sell paid access to your Telegram channels and groups"] = "y".repeat(81);
      en["bot"] = "Bot";
    });
    expectProblems(dir, [
      {
        file: "telegram/lang/en.json",
        pointer: "/Sell paid access to your Telegram channels and groups",
        message: "the tagline's translation must be at most 80 characters (it has 81)",
      },
      { file: "telegram/lang/en.json", pointer: "/bot", message: 'the translation of "bot" must be written in lower case' },
    ]);
  });

  it("refuses a folder without connector.json, and ignores hidden folders and loose files", () => {
    const dir = connectorsFolder({ telegram: "telegram" });
    writeFile(join(dir, "draft/lang/en.json"), "{}");
    writeFile(join(dir, ".git/config"), "");
    writeFile(join(dir, "README.md"), "# packages");
    expectProblems(dir, [
      { file: "draft/connector.json", pointer: "", message: /^the file is missing; every folder of the connectors folder is a connector package/ },
    ]);
    rmSync(join(dir, "draft"), { recursive: true });
    assert.deepEqual([...loadConnectorRegistry(dir).packages.keys()], ["telegram"]);
  });

  it("refuses a CONNECTORS_DIR that does not exist", () => {
    const dir = join(connectorsFolder({}), "missing");
    expectProblems(dir, [{ file: "", pointer: "", message: /^the connectors folder does not exist; set CONNECTORS_DIR/ }]);
  });
});
