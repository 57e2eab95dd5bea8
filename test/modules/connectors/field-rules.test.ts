// The manifest rule language (field-rules.ts): each rule, the presence rules, unknown keys, the
// defaults of required selects, and every rule of the repository's manifests parses.
import assert from "node:assert/strict";
import { checkFieldValues, defaultValues, parseRule, UnsupportedRuleError } from "../../../src/modules/connectors/field-rules.ts";
import { repositoryConnectorRegistry } from "../../helpers/server.ts";
import type { Field } from "../../../generated/connector-manifest.d.ts";

const field = (name: string, rules: string[], extra: Partial<Field> = {}): Field => ({ name, type: "text", label: name, rules, ...extra });
const problems = (rule: string, value: string | boolean) => parseRule(rule)!(value);

describe("the manifest rule language", () => {
  it("checks types, lengths, lists, patterns and URLs", () => {
    assert.equal(problems("string", "x"), null);
    assert.equal(problems("string", true), "must be a string");
    assert.equal(problems("boolean", false), null);
    assert.equal(problems("boolean", "true"), "must be true or false");
    assert.equal(problems("max:3", "abc"), null);
    assert.equal(problems("max:3", "abcd"), "must be at most 3 characters");
    assert.equal(problems("max:1", "é"), null, "characters, not bytes");
    assert.equal(problems("min:2", "a"), "must be at least 2 characters");
    assert.equal(problems("in:en,de", "de"), null);
    assert.equal(problems("in:en,de", "fr"), "must be one of en, de");
    assert.equal(problems("regex:/^[0-9]{17,20}$/", "123456789012345678"), null);
    assert.equal(problems("regex:/^[0-9]{17,20}$/", "12"), "must match ^[0-9]{17,20}$");
    assert.equal(problems("regex:/^abc$/i", "ABC"), null);
    assert.equal(problems("url:https", "https://example.com"), null);
    assert.equal(problems("url:https", "http://example.com"), "must be an https URL");
    assert.equal(problems("url:https", "example.com"), "must be an absolute URL");
    assert.equal(problems("url", "http://example.com"), null);
    assert.equal(parseRule("required"), null);
    assert.equal(parseRule("nullable"), null);
  });

  it("refuses a rule outside the language", () => {
    for (const rule of ["email", "max:x", "in:", "regex:abc", "regex:/(/"]) assert.throws(() => parseRule(rule), UnsupportedRuleError, rule);
  });

  it("parses every rule of the loaded manifests", () => {
    for (const pkg of repositoryConnectorRegistry().packages.values()) {
      for (const f of [...(pkg.manifest.install.fields ?? []), ...(pkg.manifest.install.settings_fields ?? [])]) {
        for (const rule of f.rules ?? []) assert.doesNotThrow(() => parseRule(rule), `${pkg.key}: ${f.name}: ${rule}`);
      }
    }
  });

  it("reports missing required values, unknown keys and broken rules under the prefix; null and empty mean no value", () => {
    const fields = [
      field("language", ["required", "in:en,de"], { type: "select", options: { en: "English", de: "German" } }),
      field("note", ["nullable", "string", "max:5"]),
      field("guide", [], { type: "instructions" }),
    ];
    const plain = (value: unknown) => JSON.parse(JSON.stringify(value));
    assert.deepEqual(plain(checkFieldValues(fields, { language: "de", note: null }, "settings")), { values: { language: "de" }, errors: {} });
    assert.deepEqual(plain(checkFieldValues(fields, { language: "", note: "" }, "settings").errors), { "settings.language": ["is required"] });
    const checked = checkFieldValues(fields, JSON.parse('{"language": "xx", "note": "toolong", "guide": "x", "__proto__": "y"}'), "settings");
    assert.deepEqual(JSON.parse(JSON.stringify(checked.errors)), {
      "settings.__proto__": ["is not a field of this connector"],
      "settings.guide": ["is not a field of this connector"],
      "settings.language": ["must be one of en, de"],
      "settings.note": ["must be at most 5 characters"],
    });
    assert.deepEqual(defaultValues(fields), { language: "en" });
    assert.deepEqual(plain(checkFieldValues([field("token", [], { required: true })], {}, "fields").errors), { "fields.token": ["is required"] });
  });
});
