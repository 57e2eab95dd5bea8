// Submitted install fields and settings checked against a manifest field's rules. The rule language
// (parseRule) lives in @subbridge/sdk/connector, where the package loader also refuses a rule it
// cannot parse, so a running server only holds rules that parse. A field with no value gets no rule
// but `required`.
import type { Field } from "../../../generated/connector-manifest.d.ts";
import { parseRule, type FieldValue } from "@subbridge/sdk/connector";
import { addFieldError, emptyFieldErrors, type FieldErrors } from "../../errors.ts";

export { parseRule, UnsupportedRuleError, type FieldValue } from "@subbridge/sdk/connector";

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
