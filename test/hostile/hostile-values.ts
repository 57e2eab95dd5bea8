// The families of hostile values, for every kind of place a client controls: a JSON value (body
// field, tool argument), a member added to a JSON object, a query parameter (as raw, already
// percent-encoded text) and a path segment. Each value carries a label for the failure report.
import fc from "fast-check";
import { limits, deref, type Json, type ParamModel } from "./spec-model.ts";
import { nestedText, raw } from "./json-text.ts";
import { jsonType, mainType } from "./valid-values.ts";

export const FAMILIES = ["wrong-type", "extreme-number", "prototype-key", "deep-nesting", "invalid-unicode", "oversized"] as const;
export type Family = (typeof FAMILIES)[number];

export interface Hostile<T> {
  value: T;
  label: string;
}

type Listed<T> = readonly (readonly [string, T])[];
const pick = <T>(list: Listed<T>): fc.Arbitrary<Hostile<T>> => fc.constantFrom(...list.map(([label, value]) => ({ label, value })));

export const PROTO_KEYS = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf"] as const;
const DEPTHS = [limits.maxDepth + 1, 100, 1_000, 10_000];
const SHAPES = ["array", "object", "mixed"] as const;
const KB10 = "a".repeat(10_240);
// The megabyte values are built once per process: every oversized case shares them.
const MB1_1_JSON = raw(Buffer.from(JSON.stringify("a".repeat(1_100_000))));
const KB10_JSON = raw(JSON.stringify(KB10));
const KB10_TWO_BYTE_JSON = raw(JSON.stringify("é".repeat(5_120)));
const TEN_THOUSAND_NUMBERS = raw(`[${"1,".repeat(9_999)}1]`);

/** Byte sequences that are not UTF-8: a BOM pair, overlong encodings, truncated and surrogate forms. */
export const INVALID_UTF8: Listed<number[]> = [
  ["0xff 0xfe", [0xff, 0xfe]],
  ["overlong '/' (0xc0 0xaf)", [0xc0, 0xaf]],
  ["overlong 3-byte (0xe0 0x80 0xaf)", [0xe0, 0x80, 0xaf]],
  ["truncated 3-byte (0xe2 0x82)", [0xe2, 0x82]],
  ["truncated 4-byte (0xf0 0x9f 0x98)", [0xf0, 0x9f, 0x98]],
  ["encoded surrogate (0xed 0xa0 0x80)", [0xed, 0xa0, 0x80]],
  ["above U+10FFFF (0xf4 0x90 0x80 0x80)", [0xf4, 0x90, 0x80, 0x80]],
  ["lone continuation (0x80)", [0x80]],
];

const TYPE_SAMPLES: Listed<unknown> = [
  ["a string", "a string"],
  ["a numeric string", "12"],
  ["an integer", 7],
  ["a fraction", 1.5],
  ["true", true],
  ["false", false],
  ["null", null],
  ["an empty array", []],
  ["an array", [1, "x"]],
  ["an empty object", {}],
  ["an object", { a: 1 }],
];

/** Values of every JSON type the schema does not declare (strings where integers go, ...). */
function wrongTypes(schema: Json): Listed<unknown> {
  const s = deref(schema);
  const declared = new Set<string>(Array.isArray(s.type) ? s.type : [mainType(s) ?? ""]);
  if (declared.has("number")) declared.add("integer");
  const wrong = TYPE_SAMPLES.filter(([, v]) => !declared.has(jsonType(v)));
  return wrong.length ? wrong : TYPE_SAMPLES;
}

/** n items like the schema's (distinct where the items allow it): 10,000 of them overflow any maxItems. */
function manyItems(items: Json, n: number): string {
  const s = deref(items);
  const item = (i: number): string => {
    if (Array.isArray(s.enum) && s.enum.length) return JSON.stringify(s.enum[i % s.enum.length]);
    if (s.format === "uuid") return JSON.stringify(`00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`);
    if (mainType(s) === "integer" || mainType(s) === "number") return String(i + 1);
    return JSON.stringify(`item-${i}`);
  };
  return `[${Array.from({ length: n }, (_, i) => item(i)).join(",")}]`;
}

const itemLists = new WeakMap<Json, unknown>();
/** 10,000 items like the schema's, built once per items schema. */
function tenThousandItems(items: Json): unknown {
  let list = itemLists.get(items);
  if (!list) itemLists.set(items, (list = raw(manyItems(items, 10_000))));
  return list;
}

const deepValues: Listed<unknown> = DEPTHS.flatMap((d) => SHAPES.map((shape) => [`${shape} nested ${d} deep`, raw(nestedText(d, shape))] as const));

const invalidUnicodeValues: Listed<unknown> = [
  ['lone high surrogate "\\ud800"', raw('"\\ud800"')],
  ['lone low surrogate "\\udfff"', raw('"\\udfff"')],
  ["surrogate inside text", raw('"a\\ud800b"')],
  ["reversed surrogate pair", raw('"\\udc00\\ud800"')],
  ["NUL", raw('"\\u0000"')],
  ["NUL inside text", raw('"x\\u0000y"')],
  ["surrogate in an array", raw('["\\ud800"]')],
  ["surrogate in a nested key", raw('{"k\\ud800":1}')],
  ["NUL as a nested key", raw('{"\\u0000":1}')],
  ...INVALID_UTF8.map(([label, bytes]) => [`string with ${label}`, raw('"a', Buffer.from(bytes), 'b"')] as const),
];

/** Hostile JSON values of one family for a place of this schema. */
export function hostileJson(family: Family, schema: Json): fc.Arbitrary<Hostile<unknown>> {
  const s = deref(schema);
  switch (family) {
    case "wrong-type":
      return pick(wrongTypes(s));
    case "extreme-number":
      return pick<unknown>([
        ["1e308", raw("1e308")],
        ["-1e308", raw("-1e308")],
        ["1e309 (Infinity once parsed)", raw("1e309")],
        ["-1e309", raw("-1e309")],
        ["1E400", raw("1E400")],
        ["2**53+1", raw("9007199254740993")],
        ["-0", raw("-0")],
        ["-0.0", raw("-0.0")],
        ["0.1", raw("0.1")],
        ["30 digits", raw("123456789012345678901234567890")],
        ['"Infinity" as text', "Infinity"],
        ['"NaN" as text', "NaN"],
        ['"1e309" as text', "1e309"],
      ]);
    case "prototype-key":
      return pick<unknown>([
        ["{__proto__: {polluted}}", raw('{"__proto__":{"polluted":true}}')],
        ["{constructor: {prototype: {polluted}}}", raw('{"constructor":{"prototype":{"polluted":true}}}')],
        ["{toString, valueOf, hasOwnProperty}", raw('{"toString":"x","valueOf":1,"hasOwnProperty":null}')],
        ["[{__proto__: []}]", raw('[{"__proto__":[]}]')],
        ...PROTO_KEYS.map((k) => [`"${k}" as text`, k] as const),
      ]);
    case "deep-nesting":
      return pick(deepValues);
    case "invalid-unicode":
      return pick(invalidUnicodeValues);
    case "oversized":
      return pick<unknown>([
        ["10 kB string", KB10_JSON],
        ["10 kB of two-byte characters", KB10_TWO_BYTE_JSON],
        ["1.1 MB string", MB1_1_JSON],
        ["10,000 numbers", TEN_THOUSAND_NUMBERS],
        ...(s.items ? [["10,000 items like the schema's", tenThousandItems(s.items)] as const] : []),
      ]);
  }
}

/** A hostile member to add to an object (a key the schema does not know), or null for the family. */
export function hostileMember(family: Family): fc.Arbitrary<Hostile<{ key: string; value: unknown }>> | null {
  const member = (label: string, key: string, value: unknown = 1) => [label, { key, value }] as const;
  switch (family) {
    case "prototype-key":
      return pick(
        PROTO_KEYS.flatMap((k) => [
          member(`key ${k}`, k),
          member(`key ${k} holding {polluted}`, k, raw('{"polluted":true}')),
          member(`key ${k}: null`, k, null),
        ]),
      );
    case "invalid-unicode":
      return pick([
        member("key NUL", "\u0000"),
        member("key with NUL", "k\u0000"),
        member("key lone \\ud800", "\ud800"),
        member("key with \\udfff", "k\udfff"),
      ]);
    case "oversized":
      return pick([member("10 kB key", "k".repeat(10_240)), member("unknown key holding 1.1 MB", "extra", MB1_1_JSON)]);
    case "deep-nesting":
      return pick(deepValues.map(([label, value]) => member(`unknown key holding ${label}`, "extra", value)));
    default:
      return null;
  }
}

export type Pairs = readonly (readonly [string, string])[];
type Entry = readonly [string, Pairs];
const entry = (label: string, ...pairs: (readonly [string, string])[]): Entry => [label, pairs];
const repeat = (key: string, n: number) => Array.from({ length: n }, () => [key, "1"] as const);

/** Raw query pairs of one family aimed at `param` (or, with null, extra parameters nobody declared). */
export function hostileQuery(family: Family, param: ParamModel | null): fc.Arbitrary<Hostile<Pairs>> | null {
  const n = param?.name;
  const values = (list: readonly string[]): Entry[] => (n ? list.map((v) => entry(`${n}=${v.length > 40 ? `${v.slice(0, 40)}…` : v}`, [n, v])) : []);
  const ifParam = (make: (name: string) => Entry): Entry[] => (n ? [make(n)] : []);
  const extra = (list: Entry[]) => (list.length ? pick(list) : null);
  switch (family) {
    case "wrong-type":
      if (!n) return null;
      return extra([
        ...values(["abc", "true", "null", "", "%5B%5D", "%7B%7D", "1.5", "%5B1%5D", "x%20y"]),
        entry(`${n} repeated`, [n, "1"], [n, "2"]),
        entry(`${n}[]`, [`${n}[]`, "1"]),
        entry(`${n}[a]`, [`${n}[a]`, "1"]),
      ]);
    case "extreme-number":
      if (!n) return null;
      return extra([
        ...values(["Infinity", "-Infinity", "1e309", "-1e309", "NaN", "1e20", "-0", "0x10", "%2012%20", "99999999999999999999", "9".repeat(400)]),
        ...values(["1e-7", "-1", "0", "%2B5", "5e0", "0b11", "1_000"]),
      ]);
    case "prototype-key":
      return extra([
        ...values([...PROTO_KEYS]),
        ...ifParam((name) => entry(`${name}[__proto__]`, [`${name}[__proto__]`, "1"])),
        ...PROTO_KEYS.map((k) => entry(`extra key ${k}`, [k, "1"])),
        entry("extra key __proto__[polluted]", ["__proto__[polluted]", "1"]),
      ]);
    case "deep-nesting":
      return extra([
        ...DEPTHS.slice(0, 3).flatMap((d) => values(["%5B".repeat(d) + "%5D".repeat(d)])),
        ...ifParam((name) => entry(`${name}[a] x100`, [name + "[a]".repeat(100), "1"])),
        entry("key q[] x1,000", ["q" + "[]".repeat(1_000), "1"]),
        entry("raw [ x10,000 (over the 16 KB request line)", ["q", "[".repeat(10_000)]),
      ]);
    case "invalid-unicode":
      return extra([
        ...values(["%00", "a%00b", "%ED%A0%80", "%ED%BF%BF", "%FF%FE", "%C0%AF", "%E2%82", "%E0%A4%A", "%", "%zz", "%uD800", "%F4%90%80%80"]),
        entry("key %00", ["%00", "1"]),
        entry("key %ED%A0%80", ["%ED%A0%80", "1"]),
        ...ifParam((name) => entry(`key ${name}%00`, [`${name}%00`, "1"])),
      ]);
    case "oversized": {
      // 2,000 parameters within about 12 KB (under the 16 KB request line): as many repeats of
      // the parameter as fit, the rest "_=1".
      const name = n ?? "_";
      const repeats = Math.max(2, Math.min(2_000, Math.floor(4_000 / Math.max(1, name.length - 1))));
      return extra([
        ...values([KB10, "9".repeat(10_240)]),
        entry(`2,000 parameters (${name} x${repeats})`, ...repeat(name, repeats), ...repeat("_", 2_000 - repeats)),
        entry("20 kB value (over the 16 KB request line)", [name, "a".repeat(20_000)]),
      ]);
    }
  }
}

/** Raw path segments of one family for a path parameter. */
export function hostileSegment(family: Family): fc.Arbitrary<Hostile<string>> {
  const list: Record<Family, readonly string[]> = {
    "wrong-type": ["abc", "true", "null", "1.5", "-1", "0", "%7B%7D", "%5B%5D", "%20", "1%2F2", "..", "%2E%2E"],
    "extreme-number": ["Infinity", "-Infinity", "NaN", "1e309", "99999999999999999999", "9".repeat(400), "0x10", "%2012%20", "-0", "1e3", "%2B1"],
    "prototype-key": PROTO_KEYS,
    "deep-nesting": ["%5B".repeat(100) + "%5D".repeat(100), "%7B".repeat(1_000)],
    "invalid-unicode": ["%00", "1%00", "%ED%A0%80", "%FF%FE", "%C0%AF", "%E0%A4%A", "%", "%zz"],
    oversized: ["a".repeat(10_000), "1".repeat(10_000), "%41".repeat(3_000)],
  };
  return pick(list[family].map((v) => [v.length > 40 ? `${v.slice(0, 40)}… (${v.length} chars)` : v, v] as const));
}
