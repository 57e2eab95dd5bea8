// The bot's member texts come from the connector package's language files: every language the
// Telegram package ships translates every English key with the same placeholders, every text the
// bot's sources translate is a key of lang/en.json, a missing translation falls back to English,
// and the language is the member's when shipped, else the installation's, else English.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_CONNECTORS_DIR } from "../../src/config.ts";
import { loadConnectorRegistry } from "../../src/modules/connectors/registry.ts";
import { MEMBER_TEXTS } from "../../src/modules/connectors/bot/member-texts.ts";
import { botLanguage, botTexts, translate } from "../../src/modules/connectors/bot/texts.ts";
import { connectorsFolder, editJson, expectProblems, removeConnectorsFolders, writeFile } from "./connector-folders.ts";

const LANG_DIR = join(DEFAULT_CONNECTORS_DIR, "telegram", "lang");
const readLang = (lang: string): Record<string, string> => JSON.parse(readFileSync(join(LANG_DIR, `${lang}.json`), "utf8"));
/** The placeholders of a text: {name} (the bot's) and :name (the manifest's). */
const placeholders = (text: string) => [...text.matchAll(/\{\w+\}|(?<![\w/]):[a-z]\w*/g)].map((m) => m[0]).sort();

/** The sources whose t("…") calls are bot texts a member reads. */
const SOURCES = [
  ...readdirSync(join(import.meta.dirname, "../../src/modules/connectors/bot")).map((f) => `src/modules/connectors/bot/${f}`),
  "src/modules/subscriptions/member-cancel.ts",
  "src/apps/api/telegram-updates.ts",
  "src/apps/api/telegram-payments.ts",
  // Queued lines (bot-messages/phrases.ts), translated when sent.
  "src/modules/notices/notices.ts",
  "src/modules/connectors/access-sync.ts",
  "src/modules/connectors/stuck-access.ts",
  "src/modules/recovery/standby.ts",
];

describe("connector bot texts", () => {
  after(removeConnectorsFolders);
  const english = readLang("en");
  const others = readdirSync(LANG_DIR)
    .filter((f) => f !== "en.json")
    .map((f) => f.slice(0, 2));

  it("the Telegram package ships the bot language setting's languages", () => {
    const manifest = JSON.parse(readFileSync(join(DEFAULT_CONNECTORS_DIR, "telegram", "connector.json"), "utf8"));
    const language = manifest.install.settings_fields.find((f: { name: string }) => f.name === "language");
    assert.deepEqual(["en", ...others].sort(), Object.keys(language.options).sort());
  });

  for (const lang of ["de", "es", "fr", "pt"]) {
    it(`${lang}.json translates every key of en.json, keeping its placeholders`, () => {
      const translated = readLang(lang);
      assert.deepEqual(
        Object.keys(english).filter((key) => typeof translated[key] !== "string" || translated[key] === ""),
        [],
        "keys missing",
      );
      assert.deepEqual(
        Object.keys(translated).filter((key) => !Object.hasOwn(english, key)),
        [],
        "keys en.json does not have",
      );
      const broken = Object.keys(english).filter((key) => placeholders(key).join() !== placeholders(translated[key]!).join());
      assert.deepEqual(broken, [], "placeholders differ");
      // Not a copy of English: a text with words in it reads differently (names like "Telegram" aside).
      const copied = MEMBER_TEXTS.filter((key) => translated[key] === key && /[a-z]{4}/.test(key.replace(/\{\w+\}/g, "")));
      assert.ok(copied.length <= 2, `left in English: ${copied.join(" | ")}`);
    });
  }

  it('en.json holds every member text as itself, and every t("…") of the bot\'s sources is one', () => {
    assert.deepEqual(
      MEMBER_TEXTS.filter((key) => english[key] !== key),
      [],
    );
    const used = SOURCES.flatMap((file) =>
      [...readFileSync(join(import.meta.dirname, "../..", file), "utf8").matchAll(/\b(?:t|phrase)\(\s*"((?:[^"\\]|\\.)*)"/g)].map(
        (m) => JSON.parse(`"${m[1]}"`) as string,
      ),
    );
    assert.ok(used.length > 30, `found ${used.length} texts`);
    assert.deepEqual(
      used.filter((key) => !MEMBER_TEXTS.includes(key)),
      [],
    );
  });

  it("translates through the package, fills placeholders, and falls back to English for a missing key", () => {
    const pkg = { english: { "Hello {name}": "Hello {name}" }, translations: { de: { "Hello {name}": "Hallo {name}" } } };
    assert.equal(translate(pkg, "de", "Hello {name}", { name: "Ada" }), "Hallo Ada");
    assert.equal(translate(pkg, "fr", "Hello {name}", { name: "Ada" }), "Hello Ada");
    assert.equal(translate(pkg, "de", "Unknown {x}"), "Unknown {x}");
    assert.equal(botTexts(pkg, "de").day(new Date("2026-11-27T10:00:00Z")), "27. November 2026");
    assert.equal(botTexts(pkg, "en").day(new Date("2026-11-27T10:00:00Z")), "27 November 2026");
  });

  it("picks the member's language when shipped, else the installation's, else English", () => {
    const pkg = { english: {}, translations: { de: {}, fr: {} } };
    const installation = (language?: string) => ({ settings: language ? { language } : {} });
    assert.equal(botLanguage(pkg, installation("de"), "fr"), "fr");
    assert.equal(botLanguage(pkg, installation("de"), "FR-ca"), "fr");
    assert.equal(botLanguage(pkg, installation("fr"), "en-US"), "en");
    assert.equal(botLanguage(pkg, installation("de"), "ja"), "de");
    assert.equal(botLanguage(pkg, installation("de"), null), "de");
    assert.equal(botLanguage(pkg, installation("es"), "ja"), "en", "a language the package does not ship");
    assert.equal(botLanguage(pkg, installation(), undefined), "en");
    assert.equal(botLanguage(pkg, { settings: JSON.stringify({ language: "fr" }) as never }, null), "fr");
  });

  it("loads the package's other language files, and refuses a broken one", () => {
    const loaded = loadConnectorRegistry(DEFAULT_CONNECTORS_DIR).packages.get("telegram")!;
    assert.deepEqual(Object.keys(loaded.translations).sort(), ["de", "es", "fr", "pt"]);
    assert.equal(loaded.translations.de!["Welcome!"], "Willkommen!");
    const dir = connectorsFolder();
    writeFile(join(dir, "telegram/lang/de.json"), '{"Welcome!": "Willkommen!",}');
    editJson(join(dir, "telegram/lang/fr.json"), (fr) => {
      fr["Welcome!"] = "";
    });
    expectProblems(dir, [
      { file: "telegram/lang/de.json", pointer: "", message: /^the file is not valid JSON: / },
      { file: "telegram/lang/fr.json", pointer: "/Welcome!", message: "must be a non-empty string (the English text)" },
    ]);
  });
});
