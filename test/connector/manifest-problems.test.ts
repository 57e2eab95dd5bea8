// The problems validateManifest reports are for a person: a JSON pointer and one plain English
// sentence naming the field and the rule, every problem at once, nothing said twice.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { validateManifest, type ManifestProblem } from "../../sdk/src/connector/index.ts";
import { DEFINITION_RULES, FORMAT_RULES, KEYWORD_RULES, PATTERN_RULES } from "../../sdk/src/connector/rules.ts";
import { pointerTokens } from "../../sdk/src/connector/pointer.ts";
import { invalidFixtures, minimalManifest, readJson, ROOT } from "./manifest-files.ts";

const schema = readJson(join(ROOT, "spec/connector.schema.json"));

function problemsOf(input: unknown): ManifestProblem[] {
  const result = validateManifest(input);
  assert.ok(!result.valid, "expected the manifest to be refused");
  return result.errors;
}

/** Every node of the schema with its location ("#/$defs/link"). */
function* schemaNodes(node: any, location = "#"): Generator<[string, any]> {
  if (!node || typeof node !== "object") return;
  yield [location, node];
  for (const [key, child] of Object.entries(node)) if (typeof child === "object") yield* schemaNodes(child, `${location}/${key}`);
}

describe("connector manifest problems", () => {
  it("words every fixture's problem as a plain sentence that names the field", () => {
    for (const file of invalidFixtures) {
      for (const problem of problemsOf(readJson(file))) {
        const field =
          pointerTokens(problem.pointer)
            .filter((t) => !/^\d+$/.test(t))
            .at(-1) ?? "manifest";
        assert.ok(problem.message.includes(field), `${file}: "${problem.message}" does not name ${field}`);
        assert.doesNotMatch(problem.message, /must NOT|#\/|\$defs|instancePath|\bundefined\b/, `${file}: jargon in "${problem.message}"`);
        assert.ok(problem.message.length > 15 && problem.message.length < 800, problem.message);
      }
    }
  });

  it("reports every broken rule at once: five broken rules, five problems", () => {
    const manifest = minimalManifest();
    delete manifest.vendor;
    manifest.key = "Chatter App";
    manifest.messaging.max_length = 0;
    manifest.listing.tagline = "t".repeat(93);
    manifest.listing.categry = "messaging";
    const problems = problemsOf(manifest);
    assert.deepEqual(problems.map((p) => [p.pointer, p.keyword]).sort(), [
      ["/key", "pattern"],
      ["/listing/categry", "additionalProperties"],
      ["/listing/tagline", "maxLength"],
      ["/messaging/max_length", "minimum"],
      ["/vendor", "required"],
    ]);
    const message = (pointer: string) => problems.find((p) => p.pointer === pointer)!.message;
    assert.equal(message("/listing/tagline"), "listing.tagline must be at most 80 characters (it has 93)");
    assert.equal(message("/vendor"), "the manifest is missing required property vendor");
    assert.equal(message("/key"), 'key must start with a lowercase letter and contain only a-z, 0-9, _ and - (it is "Chatter App")');
    assert.equal(message("/messaging/max_length"), "messaging.max_length must be at least 1 (it is 0)");
    assert.match(
      message("/listing/categry"),
      /^listing has an unknown property "categry" \(did you mean category\?\); allowed properties are category, tagline, .* and portal_cta$/,
    );
  });

  it("names the missing property and its parent, lists allowed values, and counts characters as code points", () => {
    const manifest = minimalManifest();
    manifest.listing.marketing = { place: "room", places: "rooms", installation: "app", identity: "account" };
    manifest.install.mode = "webhook";
    manifest.listing.tagline = "🚀".repeat(81);
    const problems = problemsOf(manifest);
    const byPointer = Object.fromEntries(problems.map((p) => [p.pointer, p.message]));
    assert.equal(byPointer["/listing/marketing/audience"], "listing.marketing is missing required property audience");
    assert.equal(byPointer["/install/mode"], 'install.mode must be one of "paste_credential", "oauth" or "shared_platform" (it is "webhook")');
    assert.equal(byPointer["/listing/tagline"], "listing.tagline must be at most 80 characters (it has 81)");
  });

  it("says a broken link once, in words, though the link rule is a pattern and a format", () => {
    const manifest = minimalManifest();
    // privacy breaks both the pattern and the format; homepage only the format; support only the pattern.
    manifest.listing.links = { support: "http://chatter.example/help", homepage: "https://chatter.example/a|b", privacy: "see our privacy policy" };
    const problems = problemsOf(manifest);
    assert.deepEqual(
      problems.map((p) => [p.pointer, p.keyword]),
      [
        ["/listing/links/support", "pattern"],
        ["/listing/links/privacy", "pattern"],
        ["/listing/links/homepage", "format"],
      ],
    );
    for (const problem of problems) assert.match(problem.message, /must be an https URL \(https:\/\/\.\.\.\) or a mailto address/);
  });

  it("has words for every pattern and format of the schema and for every keyword it uses", () => {
    for (const [location, node] of schemaNodes(schema)) {
      const definition = Object.keys(DEFINITION_RULES).find((d) => location === d);
      if (typeof node.pattern === "string")
        assert.ok(definition || PATTERN_RULES[node.pattern], `no words for the pattern at ${location}: ${node.pattern}`);
      if (typeof node.format === "string")
        assert.ok(definition || FORMAT_RULES[node.format], `no words for the format at ${location}: ${node.format}`);
      for (const keyword of ["type", "enum", "minLength", "maxLength", "minimum", "minItems", "uniqueItems", "required", "pattern", "format"]) {
        if (keyword in node) assert.ok(KEYWORD_RULES[keyword], `no sentence for ${keyword}`);
      }
      if (node.additionalProperties === false) assert.ok(KEYWORD_RULES.additionalProperties);
    }
  });

  it("reads the file's text too, pointing at a JSON syntax error's line and column", () => {
    const text = readFileSync(join(ROOT, "connectors/telegram/connector.json"), "utf8");
    const result = validateManifest(text);
    assert.ok(result.valid);
    assert.equal(result.manifest.key, "telegram");
    assert.ok(validateManifest(`\uFEFF${text}`).valid, "a byte order mark is tolerated");
    const broken = text.replace('"name": "Telegram",', '"name": "Telegram"');
    const [problem] = problemsOf(broken);
    assert.equal(problem.keyword, "json");
    assert.equal(problem.pointer, "");
    assert.deepEqual(problem.params, { line: 5, column: 3 });
    assert.match(problem.message, /^the file is not valid JSON: .+ \(line 5, column 3\)$/);
    assert.match(problemsOf("")[0].message, /not valid JSON/);
  });

  it("refuses what is not an object at all", () => {
    for (const input of [null, 42, [], "[]", '"a string"']) {
      const [problem] = problemsOf(input);
      assert.equal(problem.pointer, "");
      assert.match(problem.message, /^the manifest must be an object/);
    }
  });
});
