// Hostile requests for the routes the spec does not describe (issue 43): the providers' event routes
// (Stripe's Connect events, the creators' tier billing events, an installation's Telegram updates)
// and the portal's forms. Each request has one hostile place among plausible values: a header, a
// path segment, a place in the JSON a provider sends, a form field, or the body's framing. The
// values are the REST families' (hostile-values.ts), so the routes meet what the operations meet.
import fc from "fast-check";
import { hostileJson, hostileMember, hostileQuery, hostileSegment, FAMILIES, type Family, type Hostile, type Pairs } from "./hostile-values.ts";
import { encodeJson, printableBytes, withValueAt } from "./json-text.ts";
import type { RestCase } from "./rest-cases.ts";
import type { ParamModel } from "./spec-model.ts";

/** A request as a REST case is sent (slot, label, method, target, headers, body), named by its route. */
export interface RouteCase extends Omit<RestCase, "op" | "family"> {
  route: string;
  family: string;
}

export function describeRouteCase(c: RouteCase): string {
  const target = c.target.length > 300 ? `${c.target.slice(0, 300)}… (${c.target.length} chars)` : c.target;
  const headers = JSON.stringify(c.headers);
  return [
    `${c.method} ${target}`,
    `  headers: ${headers.length > 400 ? `${headers.slice(0, 400)}…` : headers}`,
    `  body: ${c.body ? printableBytes(c.body) : "(none)"}`,
    `  hostile ${c.family} in ${c.slot}: ${c.label}`,
  ].join("\n");
}

const pick = <T>(list: readonly (readonly [string, T])[]): fc.Arbitrary<Hostile<T>> =>
  fc.constantFrom(...list.map(([label, value]) => ({ label, value })));
const short = (v: string) => (v.length > 40 ? `${v.slice(0, 40)}… (${v.length} chars)` : v);

/** Header values a client can send (no CR, LF or NUL, which HTTP itself refuses): shaped and free-form. */
export function hostileHeaderValue(shaped: readonly string[]): fc.Arbitrary<Hostile<string>> {
  const latin1 = fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0xff })
      .filter((c) => c < 0x7f || c > 0x9f)
      .map((c) => String.fromCharCode(c)),
    maxLength: 300,
  });
  return fc.oneof(
    pick(shaped.map((v) => [JSON.stringify(short(v)), v] as const)),
    latin1.map((v) => ({ label: `free-form ${JSON.stringify(short(v))}`, value: v })),
  );
}

/** Stripe-Signature values: the scheme's shape with each part hostile, repeated or missing. */
export const STRIPE_SIGNATURES = [
  "",
  "t=1,v1=",
  "t=1,v1",
  "t=,v1=",
  "v1=abc",
  "t=1",
  `t=1,v1=${"é".repeat(64)}`,
  `t=1,v1=${"0".repeat(64)}`,
  `t=${"9".repeat(400)},v1=${"0".repeat(64)}`,
  `t=1e309,v1=${"0".repeat(64)}`,
  `t=-1,v1=${"0".repeat(64)}`,
  `t=NaN,v0=${"0".repeat(64)}`,
  `t=1,${"v1=0,".repeat(1_000)}v1=1`,
  `t=1,v1=${"a".repeat(8_000)}`,
  "=,=,=",
  ",,,",
  "t=1;v1=00",
];

/** Bodies of every framing a client can send to a JSON route. */
export const JSON_FRAMINGS: readonly (readonly [string, Buffer | null])[] = [
  ["no body", null],
  ["empty body", Buffer.alloc(0)],
  ["not JSON", Buffer.from("hello")],
  ["JSON null", Buffer.from("null")],
  ["a JSON string", Buffer.from('"hi"')],
  ["a JSON array", Buffer.from("[1,2]")],
  ["truncated JSON", Buffer.from('{"update_id":1,"message":{')],
  ["invalid UTF-8", Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])],
  ["BOM then JSON", Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d])],
  ["10,000-deep array", Buffer.from("[".repeat(10_000) + "]".repeat(10_000))],
  ["__proto__ body", Buffer.from('{"__proto__":{"polluted":true}}')],
  ["1.1 MB body", Buffer.from(JSON.stringify({ a: "a".repeat(1_100_000) }))],
];

/**
 * A JSON body that is `base` with one place (one of `places`, or a key added to an object) holding
 * a hostile value of `family`: the JSON a provider sends, as a client could make it hold anything.
 */
export function hostileBody(
  base: unknown,
  places: readonly (readonly string[])[],
  family: Family,
): fc.Arbitrary<{ slot: string; label: string; body: Buffer }> {
  const slots = places.map((path) =>
    hostileJson(family, {}).map((h) => ({ slot: path.join("."), label: h.label, body: encodeJson(withValueAt(base, path, h.value)) })),
  );
  const member = hostileMember(family);
  if (member)
    slots.push(
      fc.tuple(fc.constantFrom(...places.filter((p) => p.length > 1).map((p) => p.slice(0, -1))), member).map(([path, h]) => ({
        slot: `${path.join(".")} (added key)`,
        label: h.label,
        body: encodeJson(withValueAt(base, [...path, h.value.key], h.value.value)),
      })),
    );
  return fc.oneof(...slots);
}

/** Path segments of every family, one at a time. */
export const hostileSegments = (): fc.Arbitrary<Hostile<string>> => fc.oneof(...FAMILIES.map((f) => hostileSegment(f)));

/**
 * A urlencoded form: `fields` (name -> valid value, already encoded) with `field` replaced by a
 * family's raw pairs (hostile-values.ts writes them for query strings, which forms share).
 */
export function hostileForm(fields: Record<string, string>, family: Family): fc.Arbitrary<{ slot: string; label: string; pairs: Pairs }> | null {
  const names = [...Object.keys(fields), null];
  const slots = names.flatMap((name) => {
    const hostile = hostileQuery(family, name === null ? null : ({ name } as ParamModel));
    if (!hostile) return [];
    const rest: Pairs = Object.entries(fields).filter(([k]) => k !== name);
    return [hostile.map((h) => ({ slot: name === null ? "extra fields" : `field ${name}`, label: h.label, pairs: [...rest, ...h.value] }))];
  });
  return slots.length ? fc.oneof(...slots) : null;
}

export const formBody = (pairs: Pairs) => Buffer.from(pairs.map(([k, v]) => `${k}=${v}`).join("&"), "latin1");

/** Form bodies of every framing: not a form, not UTF-8, enormous, keys nested or repeated. */
export const FORM_FRAMINGS: readonly (readonly [string, string | null, Buffer | null])[] = [
  ["JSON instead of a form", "application/json", Buffer.from('{"a":1}')],
  ["multipart", "multipart/form-data; boundary=xyz", Buffer.from('--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nx\r\n--xyz--\r\n')],
  ["no Content-Type", null, Buffer.from("a=1")],
  ["form without a body", "application/x-www-form-urlencoded", null],
  ["invalid UTF-8 bytes", "application/x-www-form-urlencoded", Buffer.from([0x61, 0x3d, 0xff, 0xfe])],
  ["invalid percent-escapes", "application/x-www-form-urlencoded", Buffer.from("a=%ED%A0%80&b=%&c=%zz&d=%00")],
  ["10,000 repeated fields", "application/x-www-form-urlencoded", Buffer.from("a=1&".repeat(10_000))],
  ["nested keys", "application/x-www-form-urlencoded", Buffer.from(`a${"[b]".repeat(1_000)}=1&__proto__[polluted]=1`)],
  ["1.1 MB form", "application/x-www-form-urlencoded", Buffer.from(`a=${"a".repeat(1_100_000)}`)],
];
