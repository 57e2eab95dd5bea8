// The reviewer's view of a spec diff: changes grouped breaking / non-breaking / documentation
// only, the same change across operations and error statuses folded into one line; and the same
// groups as JSON for machines.
import type { ChangeKind, OperationRef, Severity, SpecChange } from "./spec-changes.ts";
import { ACKNOWLEDGED_FILE, type Acknowledgment } from "./acknowledged-changes.ts";

export interface ChangeGroup {
  severity: Severity;
  kind: ChangeKind;
  operations: OperationRef[];
  where: string;
  statuses: string[];
  what: string;
  rule?: string;
  /** A breaking change reviewed as breaking no client (spec/acknowledged-changes.yaml): its reason. */
  acknowledged?: string;
}

export interface ChangeReport {
  before: string;
  after: string;
  /** Breaking changes not acknowledged: each fails the check. */
  breaking: number;
  acknowledged: number;
  non_breaking: number;
  documentation: number;
  notes: string[];
  changes: ChangeGroup[];
}

export const SEVERITIES: readonly Severity[] = ["breaking", "non-breaking", "documentation"];
const KIND_ORDER: Record<ChangeKind, number> = { added: 0, changed: 1, deprecated: 2, removed: 3 };

export function operationLabel(op: OperationRef): string {
  if (op.webhook) return `webhook ${op.webhook}`;
  return `${op.method} ${op.path}${op.operationId ? ` (${op.operationId})` : ""}`;
}

const operationKey = (op?: OperationRef) => (op ? `${op.path} ${op.method}` : "");

/** Folds changes that read the same (same place, same words) across operations and statuses. */
export function groupChanges(changes: SpecChange[]): ChangeGroup[] {
  const groups = new Map<string, ChangeGroup>();
  for (const change of changes) {
    const key = JSON.stringify([change.severity, change.kind, change.where, change.what, change.rule ?? ""]);
    let group = groups.get(key);
    if (!group) {
      group = {
        severity: change.severity,
        kind: change.kind,
        operations: [],
        where: change.where,
        statuses: [],
        what: change.what,
        ...(change.rule ? { rule: change.rule } : {}),
      };
      groups.set(key, group);
    }
    if (change.operation && !group.operations.some((op) => operationKey(op) === operationKey(change.operation)))
      group.operations.push(change.operation);
    if (change.status && !group.statuses.includes(change.status)) group.statuses.push(change.status);
  }
  const sorted = [...groups.values()];
  for (const group of sorted) {
    group.operations.sort((a, b) => operationKey(a).localeCompare(operationKey(b)));
    group.statuses.sort();
  }
  return sorted.sort(
    (a, b) =>
      SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) ||
      operationKey(a.operations[0]).localeCompare(operationKey(b.operations[0])) ||
      KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
      a.where.localeCompare(b.where) ||
      a.what.localeCompare(b.what),
  );
}

export function buildReport(
  before: string,
  after: string,
  changes: SpecChange[],
  notes: string[] = [],
  acknowledgments: Acknowledgment[] = [],
): ChangeReport {
  const groups = groupChanges(changes);
  const used = new Set<Acknowledgment>();
  for (const group of groups) {
    if (group.severity !== "breaking") continue;
    const sentence = changeSentence(group);
    const ack = acknowledgments.find((a) => a.change === sentence);
    if (ack) {
      group.acknowledged = ack.reason;
      used.add(ack);
    }
  }
  const unused = acknowledgments.filter((a) => !used.has(a));
  const allNotes = [...notes, ...unused.map((a) => `${ACKNOWLEDGED_FILE}: matches no change of this diff: ${a.change}`)];
  const count = (s: Severity) => groups.filter((g) => g.severity === s && !g.acknowledged).length;
  return {
    before,
    after,
    breaking: count("breaking"),
    acknowledged: groups.filter((g) => g.acknowledged).length,
    non_breaking: count("non-breaking"),
    documentation: count("documentation"),
    notes: allNotes,
    changes: groups,
  };
}

/** "GET /v1/x (x): response 200: field `a` removed", without the operation when there is none. */
export function changeSentence(group: ChangeGroup, formatOperation: (op: OperationRef) => string = operationLabel): string {
  const place =
    group.where === "operation"
      ? ""
      : group.where === "error responses" && group.statuses.length
        ? `error responses (${group.statuses.join(", ")}): `
        : `${group.where}: `;
  const ops = group.operations.map(formatOperation).join(", ");
  return `${ops ? `${ops}: ` : ""}${place}${group.what}`;
}

const HEADINGS: Record<Severity, string> = {
  breaking: "Breaking changes (not allowed within /v1)",
  "non-breaking": "Non-breaking changes",
  documentation: "Documentation only",
};

export function formatReport(report: ChangeReport): string {
  const lines = [`API changes from ${report.before} to ${report.after}`];
  for (const note of report.notes) lines.push(`note: ${note}`);
  if (report.changes.length === 0) {
    lines.push("", "No changes to the REST API.");
    return lines.join("\n") + "\n";
  }
  for (const severity of SEVERITIES) {
    const groups = report.changes.filter((g) => g.severity === severity && !g.acknowledged);
    if (!groups.length) continue;
    lines.push("", `${HEADINGS[severity]}: ${groups.length}`);
    for (const group of groups) {
      lines.push(`  - [${group.kind}] ${changeSentence(group)}`);
      if (group.rule) lines.push(`      why: ${group.rule}`);
    }
  }
  const acknowledged = report.changes.filter((g) => g.acknowledged);
  if (acknowledged.length) {
    lines.push("", `Breaking by the rules, acknowledged as breaking no client (${ACKNOWLEDGED_FILE}): ${acknowledged.length}`);
    for (const group of acknowledged) lines.push(`  - [${group.kind}] ${changeSentence(group)}`, `      acknowledged: ${group.acknowledged}`);
  }
  const settled = report.acknowledged ? `No breaking changes beyond the ${report.acknowledged} acknowledged.` : "No breaking changes.";
  lines.push(
    "",
    report.breaking ? `${report.breaking} breaking change(s): a breaking change needs a new major version (Versioning rule 2).` : settled,
  );
  return lines.join("\n") + "\n";
}
