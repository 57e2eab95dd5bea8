// A human-readable API changelog entry (Keep a Changelog headings) from a spec diff. Breaking
// changes are listed only under Breaking; documentation-only changes collapse into one line.
import { changeSentence, type ChangeGroup } from "./change-report.ts";
import type { ChangeKind, OperationRef } from "./spec-changes.ts";

export interface ChangelogOptions {
  release: string;
  /** YYYY-MM-DD; passed in so the output is deterministic. */
  date: string;
}

const SECTIONS: { title: string; pick: (g: ChangeGroup) => boolean }[] = [
  ...(
    [
      ["Added", "added"],
      ["Changed", "changed"],
      ["Deprecated", "deprecated"],
      ["Removed", "removed"],
    ] as [string, ChangeKind][]
  ).map(([title, kind]) => ({ title, pick: (g: ChangeGroup) => g.severity === "non-breaking" && g.kind === kind })),
  { title: "Breaking", pick: (g: ChangeGroup) => g.severity === "breaking" },
];

const markdownOperation = (op: OperationRef) =>
  op.webhook ? `webhook \`${op.webhook}\`` : `\`${op.method} ${op.path}\`${op.operationId ? ` (\`${op.operationId}\`)` : ""}`;

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function formatChangelog(groups: ChangeGroup[], options: ChangelogOptions): string {
  const lines = [`## [${options.release}] - ${options.date}`];
  const documentation = groups.filter((g) => g.severity === "documentation");
  let any = false;
  for (const section of SECTIONS) {
    const bullets = groups.filter(section.pick).map((g) => `- ${capitalise(changeSentence(g, markdownOperation))}.`);
    if (section.title === "Changed" && documentation.length) {
      const ops = new Map<string, OperationRef>();
      for (const g of documentation) for (const op of g.operations) ops.set(`${op.method} ${op.path}`, op);
      const targets = [...ops.values()].map(markdownOperation);
      bullets.push(`- Documentation (descriptions, summaries or examples) updated${targets.length ? ` for ${targets.join(", ")}` : ""}.`);
    }
    if (!bullets.length) continue;
    any = true;
    lines.push("", `### ${section.title}`, "", ...bullets);
  }
  if (!any) lines.push("", "No changes to the REST API.");
  return lines.join("\n") + "\n";
}
