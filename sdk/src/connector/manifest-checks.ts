// The rules of a manifest that JSON Schema cannot state but the server refuses: every field rule
// parses, resource kinds are unique, and a select's options agree with its `in:` rule. Run on a
// manifest the schema accepted; each problem names the fix.
import { validateConnectorManifest } from "../generated/connector-validator.js";
import { connectorSchema } from "../generated/connector-schema.js";
import type { ConnectorManifest, Field } from "../generated/connector-manifest.js";
import { inRuleValues, parseRule, UnsupportedRuleError } from "./field-rules.js";
import { parseJsonText } from "./json-text.js";
import { childPointer } from "./pointer.js";
import { manifestProblems, type ManifestProblem } from "./problems.js";

const problem = (pointer: string, keyword: string, message: string, fix: string, params: Record<string, unknown> = {}): ManifestProblem => ({
  pointer,
  message,
  keyword,
  params,
  fix,
});

function ruleProblems(field: Field, at: string): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  (field.rules ?? []).forEach((rule, i) => {
    try {
      parseRule(rule);
    } catch (err) {
      if (!(err instanceof UnsupportedRuleError)) throw err;
      problems.push(problem(`${at}/rules/${i}`, "rule", err.message, err.fix, { rule }));
    }
  });
  return problems;
}

/** A select's options and its `in:` rules must allow the same values, or a choice is refused or unreachable. */
function optionProblems(field: Field, at: string): ManifestProblem[] {
  const options = Object.keys(field.options ?? {});
  const problems: ManifestProblem[] = [];
  (field.rules ?? []).forEach((rule, i) => {
    const allowed = inRuleValues(rule);
    if (!allowed || field.type !== "select") return;
    for (const value of options.filter((option) => !allowed.includes(option))) {
      const message = `the option "${value}" is not allowed by the rule "${rule}", so choosing it is refused`;
      problems.push(
        problem(childPointer(`${at}/options`, value), "options", message, `add ${value} to the in: rule or remove the option`, {
          rule,
          option: value,
        }),
      );
    }
    for (const value of allowed.filter((value) => !options.includes(value))) {
      const message = `the rule "${rule}" allows "${value}", which no option offers`;
      problems.push(problem(`${at}/rules/${i}`, "options", message, `add an option "${value}" or remove it from the rule`, { rule, option: value }));
    }
  });
  return problems;
}

function fieldProblems(fields: readonly Field[] | undefined, at: string): ManifestProblem[] {
  return (fields ?? []).flatMap((field, i) => [...ruleProblems(field, `${at}/${i}`), ...optionProblems(field, `${at}/${i}`)]);
}

function kindProblems(manifest: ConnectorManifest): ManifestProblem[] {
  const first = new Map<string, number>();
  const problems: ManifestProblem[] = [];
  (manifest.resource_kinds ?? []).forEach((kind, i) => {
    const earlier = first.get(kind.kind);
    if (earlier === undefined) first.set(kind.kind, i);
    else {
      const message = `the resource kind "${kind.kind}" is already declared at /resource_kinds/${earlier}`;
      problems.push(
        problem(`/resource_kinds/${i}/kind`, "uniqueKind", message, "give each resource kind its own name or remove the repeat", { kind: kind.kind }),
      );
    }
  });
  return problems;
}

/**
 * A manifest (object or JSON text) checked by the schema, then by the rules above; `manifest` is set
 * when the schema accepts it, so a loader can go on to the files that depend on it.
 */
export function checkManifest(input: unknown): { manifest: ConnectorManifest | null; problems: ManifestProblem[] } {
  let value = input;
  if (typeof input === "string") {
    const parsed = parseJsonText(input);
    if (!parsed.ok) return { manifest: null, problems: [parsed.problem] };
    value = parsed.value;
  }
  if (!validateConnectorManifest(value)) {
    return { manifest: null, problems: manifestProblems(validateConnectorManifest.errors ?? [], value, connectorSchema) };
  }
  const manifest = value as ConnectorManifest;
  return { manifest, problems: manifestCheckProblems(manifest) };
}

/** Every cross-field problem of a schema-valid manifest. */
function manifestCheckProblems(manifest: ConnectorManifest): ManifestProblem[] {
  return [
    ...fieldProblems(manifest.install.fields, "/install/fields"),
    ...fieldProblems(manifest.install.settings_fields, "/install/settings_fields"),
    ...kindProblems(manifest),
  ];
}
