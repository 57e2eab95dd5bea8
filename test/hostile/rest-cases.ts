// Hostile REST requests for one operation and one family: every other parameter and body field
// valid-looking (from the schema, preferring the world's anchors), exactly one place hostile. The
// places are found in the spec: each path and query parameter, extra query keys, every field of
// the body schema (root, properties, array items, recursively) and every object in it that can
// take an unknown key. The "framing" family varies the content type and the body instead.
import fc from "fast-check";
import type { OperationSpec } from "../../generated/operations.ts";
import { acceptsObject, fieldName, type OperationModel, type ParamModel } from "./spec-model.ts";
import { encodeJson, withValueAt, printableBytes } from "./json-text.ts";
import { hostileJson, hostileMember, hostileQuery, hostileSegment, type Family, type Hostile, type Pairs } from "./hostile-values.ts";
import { validValue, type Anchors } from "./valid-values.ts";

export type RestFamily = Family | "framing";

export interface RestCase {
  op: OperationSpec;
  family: RestFamily;
  /** Where the hostile value is ("query per_page", "body abilities.0", ...) and what it is. */
  slot: string;
  label: string;
  method: string;
  /** Path and query exactly as sent (percent-encoding is the case's own). */
  target: string;
  /** Content-Type, when one is sent (Authorization and Idempotency-Key are added when sending). */
  headers: Record<string, string>;
  body: Buffer | null;
}

interface Draft {
  path: Record<string, string>;
  query: Pairs;
  /** A JSON value (with RawJson leaves) to encode; undefined sends no body. */
  json: unknown;
}

export function describeCase(c: RestCase): string {
  const target = c.target.length > 300 ? `${c.target.slice(0, 300)}… (${c.target.length} chars)` : c.target;
  return [
    `${c.method} ${target}`,
    `  headers: ${JSON.stringify(c.headers)} (+ Authorization${c.op.write ? ", Idempotency-Key" : ""})`,
    `  body: ${c.body ? printableBytes(c.body) : "(none)"}`,
    `  hostile ${c.family} in ${c.slot}: ${c.label}`,
  ].join("\n");
}

const enc = (v: unknown) => encodeURIComponent(typeof v === "string" ? v : JSON.stringify(v));

function baseDraft(model: OperationModel, anchors: Anchors): fc.Arbitrary<Draft> {
  const path = fc.record(Object.fromEntries(model.pathParams.map((p) => [p.name, validValue(p.schema, p.name, anchors).map(enc)])));
  const query = fc
    .record(Object.fromEntries(model.queryParams.map((p) => [p.name, validValue(p.schema, p.name, anchors)])), {
      requiredKeys: model.queryParams.filter((p) => p.required).map((p) => p.name),
    })
    .map((q) => Object.entries(q).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((item): [string, string] => [k, enc(item)])));
  const json = model.body ? validValue(model.body.schema, "", anchors) : fc.constant(undefined);
  return fc.record({ path, query, json });
}

function finish(model: OperationModel, family: RestFamily, slot: string, h: Hostile<unknown>, d: Draft, framing?: Framing): RestCase {
  const path = model.op.path.replace(/\{([^}]+)\}/g, (_, name: string) => d.path[name] ?? "1");
  const query = d.query.map(([k, v]) => `${k}=${v}`).join("&");
  const jsonBody = d.json === undefined ? null : encodeJson(d.json);
  const body = framing ? framing.body(jsonBody) : jsonBody;
  const contentType = framing ? framing.contentType : jsonBody ? "application/json" : null;
  return {
    op: model.op,
    family,
    slot,
    label: h.label,
    method: model.op.method,
    target: query ? `${path}?${query}` : path,
    headers: contentType === null ? {} : { "content-type": contentType },
    body,
  };
}

/** Parameters that stand for the same input (a documented alias and its target) go together. */
const related = (model: OperationModel, p: ParamModel) =>
  new Set([p.name, ...(p.aliasOf ? [p.aliasOf] : []), ...model.queryParams.filter((q) => q.aliasOf === p.name).map((q) => q.name)]);

interface Framing {
  label: string;
  contentType: string | null;
  body(valid: Buffer | null): Buffer | null;
}

function framings(model: OperationModel): Framing[] {
  const f = (label: string, contentType: string | null, body: (valid: Buffer | null) => string | Buffer | null): Framing => ({
    label,
    contentType,
    body: (valid) => {
      const b = body(valid);
      return b === null ? null : Buffer.from(b);
    },
  });
  const valid = (v: Buffer | null) => v ?? Buffer.from("{}");
  if (!model.body) {
    return [
      f(`JSON object on ${model.op.method}`, "application/json", () => '{"a":1}'),
      f(`text on ${model.op.method}`, "text/plain", () => "hello"),
      f(`body without Content-Type on ${model.op.method}`, null, () => '{"a":1}'),
      f(`__proto__ body on ${model.op.method}`, "application/json", () => '{"__proto__":{"polluted":true}}'),
      f(`10,000-deep body on ${model.op.method}`, "application/json", () => "[".repeat(10_000) + "]".repeat(10_000)),
      f(`invalid UTF-8 body on ${model.op.method}`, "application/json", () => Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])),
    ];
  }
  const typed = [
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=xyz",
    "application/json; charset=latin1",
    "application/json; charset=utf-16",
    "application/merge-patch+json",
    "APPLICATION/JSON",
    "application/jsonl",
    "",
  ].map((ct) => f(`valid JSON sent as ${JSON.stringify(ct)}`, ct, valid));
  return [
    ...typed,
    f("valid JSON without Content-Type", null, valid),
    f("form text", "application/x-www-form-urlencoded", () => "name=x&abilities=team%3Aview"),
    f("multipart text", "multipart/form-data; boundary=xyz", () => '--xyz\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--xyz--\r\n'),
    f("latin1 bytes labelled latin1", "application/json; charset=latin1", (v) =>
      Buffer.from(valid(v).toString("utf8").replace(/}$/, ',"x":"é"}'), "latin1"),
    ),
    f("empty body", "application/json", () => ""),
    f("whitespace body", "application/json", () => " \r\n\t "),
    f("no body and no Content-Type", null, () => null),
    f("JSON null", "application/json", () => "null"),
    f("BOM then JSON", "application/json", (v) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), valid(v)])),
    f("two JSON documents", "application/json", (v) => Buffer.concat([valid(v), valid(v)])),
  ];
}

/** Every hostile request of this family for this operation, or null when the family has no place here. */
export function restCases(model: OperationModel, family: RestFamily, anchors: Anchors): fc.Arbitrary<RestCase> | null {
  const base = baseDraft(model, anchors);
  const slots: fc.Arbitrary<RestCase>[] = [];
  const add = <T>(slot: string, hostile: fc.Arbitrary<Hostile<T>> | null, apply: (d: Draft, value: T) => Draft) => {
    if (hostile) slots.push(fc.tuple(base, hostile).map(([d, h]) => finish(model, family, slot, h, apply(d, h.value))));
  };
  if (family === "framing") {
    const arb = fc.tuple(base, fc.constantFrom(...framings(model)));
    return arb.map(([d, fr]) => finish(model, family, "framing", { label: fr.label, value: null }, d, fr));
  }
  for (const p of model.pathParams) add(`path ${p.name}`, hostileSegment(family), (d, v) => ({ ...d, path: { ...d.path, [p.name]: v } }));
  for (const p of model.queryParams) {
    const drop = related(model, p);
    add(`query ${p.name}`, hostileQuery(family, p), (d, pairs) => ({ ...d, query: [...d.query.filter(([k]) => !drop.has(k)), ...pairs] }));
  }
  add("extra query keys", hostileQuery(family, null), (d, pairs) => ({ ...d, query: [...d.query, ...pairs] }));
  for (const field of model.fields) {
    const name = field.path.length ? fieldName(field.path) : "(root)";
    add(`body ${name}`, hostileJson(family, field.schema), (d, v) => ({ ...d, json: withValueAt(d.json, field.path, v) }));
    if (acceptsObject(field.schema)) {
      add(`body ${name} (added key)`, hostileMember(family), (d, m) => ({ ...d, json: withValueAt(d.json, [...field.path, m.key], m.value) }));
    }
  }
  return slots.length ? fc.oneof(...slots) : null;
}
