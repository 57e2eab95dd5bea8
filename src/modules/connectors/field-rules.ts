// The server-side rule language of a manifest field (`rules`, plus `required`), implemented once:
// install fields and settings are both checked here. Rules:
//   required        a value must be given (null and "" count as none)
//   nullable        the field may be left empty (the default for a field that is not required)
//   string, boolean the value's type
//   max:N, min:N    length of a string, in characters
//   in:a,b,...      one of the listed values
//   regex:/p/f      a string the JavaScript pattern p (flags among i, m, s, u) matches
//   url[:s1,s2]     an absolute URL whose scheme is one of s1, s2 (default http, https)
// A field with no value gets no rule but `required`. A rule outside the language is a mistake in the
// package, reported as UnsupportedRuleError (test/modules/connectors checks every loaded manifest).
import type { Field } from "../../../generated/connector-manifest.d.ts";
import { addFieldError, emptyFieldErrors, type FieldErrors } from "../../errors.ts";

export type FieldValue = string | boolean;

export class UnsupportedRuleError extends Error {}

type Check = (value: FieldValue) => string | null;

/** The check of one rule string, or null for the presence rules (required, nullable). */
export function parseRule(rule: string): Check | null {
  const colon = rule.indexOf(":");
  const name = colon < 0 ? rule : rule.slice(0, colon);
  const arg = colon < 0 ? null : rule.slice(colon + 1);
  const count = () => {
    if (arg === null || !/^[0-9]+$/.test(arg)) throw new UnsupportedRuleError(`the rule "${rule}" needs a whole number`);
    return Number(arg);
  };
  switch (name) {
    case "required":
    case "nullable":
      return null;
    case "string":
      return (v) => (typeof v === "string" ? null : "must be a string");
    case "boolean":
      return (v) => (typeof v === "boolean" ? null : "must be true or false");
    case "max": {
      const n = count();
      return (v) => (typeof v === "string" && [...v].length > n ? `must be at most ${n} characters` : null);
    }
    case "min": {
      const n = count();
      return (v) => (typeof v === "string" && [...v].length < n ? `must be at least ${n} characters` : null);
    }
    case "in": {
      if (!arg) throw new UnsupportedRuleError(`the rule "${rule}" lists no values`);
      const allowed = arg.split(",");
      return (v) => (typeof v === "string" && allowed.includes(v) ? null : `must be one of ${allowed.join(", ")}`);
    }
    case "regex": {
      const match = arg === null ? null : /^\/(.*)\/([imsu]*)$/s.exec(arg);
      if (!match) throw new UnsupportedRuleError(`the rule "${rule}" is not written /pattern/flags`);
      let pattern: RegExp;
      try {
        pattern = new RegExp(match[1]!, match[2]);
      } catch (err) {
        throw new UnsupportedRuleError(`the rule "${rule}" is not a valid pattern: ${(err as Error).message}`);
      }
      return (v) => (typeof v === "string" && pattern.test(v) ? null : "has an invalid format");
    }
    case "url": {
      const schemes = (arg ?? "http,https").split(",").map((s) => `${s}:`);
      return (v) => {
        if (typeof v !== "string") return "must be a URL";
        let url: URL;
        try {
          url = new URL(v);
        } catch {
          return "must be an absolute URL";
        }
        return schemes.includes(url.protocol) ? null : `must be an ${schemes.map((s) => s.slice(0, -1)).join(" or ")} URL`;
      };
    }
    default:
      throw new UnsupportedRuleError(`the rule "${rule}" is not part of the rule language`);
  }
}

/** Fields that take a value (instructions only show text). */
export function valueFields(fields: readonly Field[] | undefined): Field[] {
  return (fields ?? []).filter((f) => f.type !== "instructions");
}

const isRequired = (field: Field) => field.required === true || (field.rules ?? []).includes("required");

/** A required select with no value takes its first option (install only). */
export function defaultValues(fields: readonly Field[]): Record<string, FieldValue> {
  const defaults: Record<string, FieldValue> = {};
  for (const field of valueFields(fields)) {
    const first = field.type === "select" && field.options ? Object.keys(field.options)[0] : undefined;
    if (isRequired(field) && first !== undefined) defaults[field.name] = first;
  }
  return defaults;
}

/**
 * Checks `values` against the manifest's `fields`. Keys that name no value field, and every rule
 * broken, are reported as `<prefix>.<name>`. null and "" mean "no value" and are left out of the
 * result, so a change can clear a field that is not required.
 */
export function checkFieldValues(
  fields: readonly Field[] | undefined,
  values: Readonly<Record<string, FieldValue | null>>,
  prefix: string,
): { values: Record<string, FieldValue>; errors: FieldErrors } {
  const errors = emptyFieldErrors();
  const byName = new Map(valueFields(fields).map((f) => [f.name, f]));
  const kept: Record<string, FieldValue> = {};
  for (const key of Object.keys(values)) {
    if (!byName.has(key)) addFieldError(errors, `${prefix}.${key}`, "is not a field of this connector");
  }
  for (const field of byName.values()) {
    const value = Object.hasOwn(values, field.name) ? values[field.name] : undefined;
    const key = `${prefix}.${field.name}`;
    if (value === undefined || value === null || value === "") {
      if (isRequired(field)) addFieldError(errors, key, "is required");
      continue;
    }
    for (const rule of field.rules ?? []) {
      const problem = parseRule(rule)?.(value);
      if (problem) addFieldError(errors, key, problem);
    }
    kept[field.name] = value;
  }
  return { values: kept, errors };
}
