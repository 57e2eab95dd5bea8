// The changes between two bundled OpenAPI documents, computed by api-smart-diff and classified by
// the Versioning rules (classify-change.ts): one entry per operation and place, worded for people.
import { apiCompare, type Diff } from "api-smart-diff";
import { classifyChange, type Severity } from "./classify-change.ts";
import { describeDiff, type DiffDescription, type JsonPath, type OperationRef } from "./describe-diff.ts";
import { normalizeForDiff } from "./normalize-for-diff.ts";

export type { Severity } from "./classify-change.ts";
export type { OperationRef } from "./describe-diff.ts";

/** The changelog section a change belongs in. */
export type ChangeKind = "added" | "changed" | "deprecated" | "removed";

export interface SpecChange {
  severity: Severity;
  kind: ChangeKind;
  /** Absent for document-level changes (security schemes, metadata). */
  operation?: OperationRef;
  where: string;
  status?: string;
  what: string;
  /** Why the library's classification was overridden. */
  rule?: string;
  /** api-smart-diff's own classification. */
  library: Diff["type"];
  /** Where the library saw the change (indices of the before document). */
  path: JsonPath;
}

const SEVERITY_RANK: Record<Severity, number> = { documentation: 0, "non-breaking": 1, breaking: 2 };

function kindOf(diff: Diff, description: DiffDescription): ChangeKind {
  if (description.deprecation) return "deprecated";
  const structural =
    description.keyword === undefined || description.keyword === "enum" || description.keyword === "headers" || description.keyword === "content";
  if (structural && description.operationKey === undefined && diff.action === "add") return "added";
  if (structural && description.operationKey === undefined && diff.action === "remove") return "removed";
  return "changed";
}

const sameOperation = (a?: OperationRef, b?: OperationRef) => a?.method === b?.method && a?.path === b?.path;

/**
 * A field added or removed together with its `required` entry is one change: the `required`
 * entry is folded into the field's entry, which keeps the more severe classification.
 */
function foldRequiredIntoFieldChanges(entries: { change: SpecChange; description: DiffDescription }[]) {
  const kept: typeof entries = [];
  for (const entry of entries) {
    const { change, description } = entry;
    if (description.keyword === "required" && description.entry !== undefined) {
      const fieldName = [description.field, String(description.entry)].filter(Boolean).join(".");
      const target = entries.find(
        (other) =>
          other !== entry &&
          other.description.keyword === undefined &&
          other.description.field === fieldName &&
          other.change.where === change.where &&
          other.change.status === change.status &&
          sameOperation(other.change.operation, change.operation) &&
          (other.change.kind === "added" || other.change.kind === "removed"),
      );
      if (target) {
        if (target.change.kind === "added") target.change.what = target.change.what.replace(/ added$/, " added (required)");
        if (SEVERITY_RANK[change.severity] > SEVERITY_RANK[target.change.severity]) {
          target.change.severity = change.severity;
          target.change.rule = change.rule;
        }
        continue;
      }
    }
    kept.push(entry);
  }
  return kept.map((e) => e.change);
}

export function compareSpecs(beforeDoc: Record<string, unknown>, afterDoc: Record<string, unknown>): SpecChange[] {
  const docs = { before: normalizeForDiff(beforeDoc), after: normalizeForDiff(afterDoc) };
  const { diffs } = apiCompare(docs.before, docs.after);
  const entries: { change: SpecChange; description: DiffDescription }[] = [];
  const seenTypeChanges = new Set<string>();
  for (const diff of diffs) {
    const description = describeDiff(diff, docs);
    if (!description) continue;
    const { severity, rule } = classifyChange(diff, description, docs);
    const change: SpecChange = {
      severity,
      kind: kindOf(diff, description),
      ...(description.operation ? { operation: description.operation } : {}),
      where: description.where,
      ...(description.status ? { status: description.status } : {}),
      what: description.what,
      ...(rule ? { rule } : {}),
      library: diff.type,
      path: diff.path as JsonPath,
    };
    if (description.keyword === "type") {
      // one entry per schema, even when the library reports each entry of a type array
      const key = JSON.stringify([change.operation, change.where, change.status, change.what]);
      if (seenTypeChanges.has(key)) continue;
      seenTypeChanges.add(key);
      if (/ changed from (.+) to \1$/.test(change.what)) continue; // same types, other spelling
    }
    entries.push({ change, description });
  }
  return foldRequiredIntoFieldChanges(entries);
}
