// validateManifest judges every fixture as its name says: valid ones pass; each invalid one fails
// with its expected pointer and keyword, and with no problem elsewhere (it breaks one rule).
// Also: the schema compiles under ajv's strict mode, and the example connectors are valid and
// consistent with their language files.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { validateManifest } from "../../sdk/src/connector/index.ts";
import { MEMBER_TEXTS } from "../../src/modules/connectors/bot/member-texts.ts";
import { exampleConnectors, expectationFiles, expectationOf, invalidFixtures, readJson, ROOT, validFixtures } from "./manifest-files.ts";

const schema = readJson(join(ROOT, "spec/connector.schema.json"));
const describeProblems = (problems: { pointer: string; keyword: string; message: string }[]) =>
  problems.map((p) => `${JSON.stringify(p.pointer)} ${p.keyword}: ${p.message}`).join("\n  ");

describe("connector manifest fixtures", () => {
  it("the schema compiles in ajv strict mode without warnings", () => {
    const logged: string[] = [];
    const log = (...args: unknown[]) => void logged.push(args.join(" "));
    const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ allErrors: true, strict: true, logger: { log, warn: log, error: log } });
    (addFormats as unknown as typeof addFormats.default)(ajv);
    ajv.compile(schema);
    assert.deepEqual(logged, []);
  });

  it("has fixtures of both kinds, and an expectation for every invalid fixture and no stray one", () => {
    assert.ok(validFixtures.length > 10 && invalidFixtures.length > 100);
    for (const fixture of invalidFixtures)
      assert.ok(existsSync(fixture.replace(/\.json$/, ".expect.json")), `${basename(fixture)} has no .expect.json`);
    for (const expectation of expectationFiles)
      assert.ok(existsSync(expectation.replace(/\.expect\.json$/, ".json")), `${basename(expectation)} names no fixture`);
  });

  for (const file of [...validFixtures, ...exampleConnectors]) {
    it(`accepts ${relative(ROOT, file)}`, () => {
      const result = validateManifest(readJson(file));
      assert.ok(result.valid, result.valid ? "" : describeProblems(result.errors));
      assert.deepEqual(result.manifest, readJson(file));
    });
  }

  for (const file of invalidFixtures) {
    const name = basename(file, ".json");
    it(`refuses ${name}`, () => {
      const expected = expectationOf(file);
      const result = validateManifest(readJson(file));
      assert.ok(!result.valid, "the fixture validates");
      const hit = result.errors.some((p) => p.pointer === expected.pointer && p.keyword === expected.keyword);
      assert.ok(hit, `expected ${JSON.stringify(expected.pointer)} ${expected.keyword}, got:\n  ${describeProblems(result.errors)}`);
      const elsewhere = result.errors.filter((p) => p.pointer !== expected.pointer);
      assert.deepEqual(elsewhere, [], `the fixture breaks more than one rule`);
    });
  }

  describe("example connectors", () => {
    for (const file of exampleConnectors) {
      const dir = dirname(file);
      it(`${relative(ROOT, dir)}: key names its directory, $schema is the schema's $id, lang/en.json holds exactly its English keys (and its bot's)`, () => {
        const manifest = readJson(file);
        assert.equal(manifest.key, basename(dir));
        assert.equal(manifest.$schema, schema.$id);
        const lang: Record<string, unknown> = readJson(join(dir, "lang/en.json"));
        const wanted = creatorStrings(manifest);
        assert.deepEqual(
          wanted.filter((key) => typeof lang[key] !== "string" || lang[key] === ""),
          [],
          "keys missing from lang/en.json",
        );
        // The Telegram package also holds the texts its bot sends members (bot/member-texts.ts).
        const botTexts: readonly string[] = manifest.key === "telegram" ? MEMBER_TEXTS : [];
        assert.deepEqual(
          Object.keys(lang).filter((key) => !wanted.includes(key) && !botTexts.includes(key)),
          [],
          "keys in lang/en.json neither the manifest nor the bot uses",
        );
      });
    }
  });
});

/** Every string of a manifest a creator or member reads: an English key the package translates. */
function creatorStrings(manifest: any): string[] {
  const out = new Set<string>();
  const add = (s: unknown) => void (typeof s === "string" && s !== "" && out.add(s));
  add(manifest.name);
  for (const field of [...(manifest.install?.fields ?? []), ...(manifest.install?.settings_fields ?? [])]) {
    add(field.label);
    add(field.help);
    (field.steps ?? []).forEach(add);
    Object.values(field.options ?? {}).forEach(add);
    Object.keys(field.links ?? {}).forEach(add);
  }
  for (const kind of manifest.resource_kinds ?? []) {
    add(kind.label);
    add(kind.portal_label);
  }
  const listing = manifest.listing ?? {};
  add(listing.tagline);
  add(listing.overview);
  Object.values(listing.marketing ?? {}).forEach(add);
  add(listing.portal_cta?.label);
  return [...out];
}
