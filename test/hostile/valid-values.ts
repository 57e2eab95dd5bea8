// Valid-looking values from a JSON schema (enums, formats, patterns, bounds, required keys), so
// a request carries exactly one hostile field and validation has to look past the valid ones.
// Anchors are real values of the suite's world (its project, its team) that fields of the same
// name prefer, so hostile requests reach the seeded rows instead of answering 404.
import fc from "fast-check";
import { deref, type Json } from "./spec-model.ts";

export type Anchors = Readonly<Record<string, readonly unknown[]>>;

export function validValue(schema: Json, name: string, anchors: Anchors, depth = 0): fc.Arbitrary<unknown> {
  const fromSchema = bySchema(deref(schema), anchors, depth);
  const anchored = anchors[name];
  if (!anchored?.length) return fromSchema;
  return fc.oneof({ arbitrary: fc.constantFrom(...anchored), weight: 3 }, { arbitrary: fromSchema, weight: 1 });
}

/** The JSON type a value of this schema takes (the first non-null one when several are allowed). */
export function mainType(schema: Json): string | undefined {
  const s = deref(schema);
  if (Array.isArray(s.type)) return s.type.find((t: string) => t !== "null") ?? "null";
  if (s.type) return s.type;
  if (Array.isArray(s.enum) && s.enum.length) return jsonType(s.enum[0]);
  if (s.properties) return "object";
  if (s.items) return "array";
  return undefined;
}

export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function bySchema(schema: Json, anchors: Anchors, depth: number): fc.Arbitrary<unknown> {
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter((v: unknown) => v !== null);
    return values.length ? fc.constantFrom(...values) : fc.constant(null);
  }
  const branches: Json[] | undefined = schema.oneOf ?? schema.anyOf;
  if (branches?.length) return fc.oneof(...branches.map((b) => validValue(b, "", anchors, depth + 1)));
  if (schema.allOf?.length) {
    const merged = [schema, ...schema.allOf.map(deref)].reduce((acc: Json, s: Json) => ({
      ...acc,
      ...s,
      properties: { ...acc.properties, ...s.properties },
      required: [...(acc.required ?? []), ...(s.required ?? [])],
    }));
    delete merged.allOf;
    return bySchema(merged, anchors, depth);
  }
  switch (mainType(schema)) {
    case "string":
      return stringValue(schema);
    case "integer":
    case "number": {
      const min = schema.minimum ?? (typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum + 1 : -1000);
      const max = schema.maximum ?? (typeof schema.exclusiveMaximum === "number" ? schema.exclusiveMaximum - 1 : min + 1000);
      return mainType(schema) === "integer" ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const item = validValue(schema.items ?? {}, "", anchors, depth + 1);
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.min(schema.maxItems ?? minLength + 3, minLength + 3);
      return schema.uniqueItems
        ? fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(item, { minLength, maxLength });
    }
    case "object": {
      if (depth > 6) return fc.constant({});
      const props: Json = schema.properties ?? {};
      const model = Object.fromEntries(Object.entries(props).map(([key, s]) => [key, validValue(s as Json, key, anchors, depth + 1)]));
      const requiredKeys = (schema.required ?? []).filter((k: string) => k in props);
      return fc.record(model, { requiredKeys });
    }
    default:
      return fc.constantFrom<unknown>("x", 1, true, null, { a: 1 });
  }
}

function stringValue(schema: Json): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? minLength + 24, minLength + 24);
  switch (schema.format) {
    case "uuid":
      return fc.uuid();
    case "date-time":
    case "date": {
      // Valid-looking means in the future too: an expiry in the past is (rightly) refused.
      const dates = fc.date({ min: new Date("2031-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true });
      return dates.map((d) => (schema.format === "date" ? d.toISOString().slice(0, 10) : d.toISOString()));
    }
    case "email":
      return fc.emailAddress();
    case "uri": {
      // A pattern narrows the format (https only, say): keep the URLs that match it.
      const urls = fc.webUrl({ validSchemes: ["https", "http"] });
      return typeof schema.pattern === "string" ? urls.filter((u) => new RegExp(schema.pattern, "u").test(u)) : urls;
    }
  }
  if (typeof schema.pattern === "string") {
    const max = schema.maxLength ?? Infinity;
    return fc.stringMatching(new RegExp(schema.pattern, "u")).filter((s) => s.length >= minLength && s.length <= max);
  }
  return fc.string({ unit: "grapheme-ascii", minLength, maxLength });
}
