// The error reference every error's docs_url points into ({docs_url}/errors#<code lowercased>):
// one entry per code of generated/error-codes.json, its heading anchored by the docs_anchor (the
// one a docs_url names is highlighted). Written as Markdown like the other pages (twin /errors.md).
import type { MarkdownPage } from "../../site/pages/markdown-routes.ts";
import { markdownText } from "../../site/pages/markdown.ts";

export interface ErrorEntry {
  code: string;
  status: number;
  title: string;
  when: string;
  remediation: string;
  docs_anchor: string;
}

/** The catalog's prose keeps `code` spans; anything else is literal. */
const prose = (text: string) =>
  text
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 ? part : markdownText(part)))
    .join("");

export function errorReferencePage(errors: readonly ErrorEntry[]): MarkdownPage {
  const entries = errors.map(
    (e) => `### ${e.code} {#${e.docs_anchor}}

**${e.status} · ${markdownText(e.title)}.** ${prose(e.when)}

**What to do:** ${prose(e.remediation)}
`,
  );
  return {
    path: "/errors",
    title: "Error reference",
    description: "Every SubBridge error code: when it happens and what to do.",
    markdown: `# Error reference

Every REST and MCP error answers \`{error: {code, message, docs_url, remediation, request_id, fields?, context?}}\`.
Match on \`code\`; the message may change. \`request_id\` equals the \`X-Request-Id\` response header.
\`docs_url\` links to the code's entry below. The catalog is also available as [JSON](/errors/error-codes.json).

| Code | Status |
|---|---|
${errors.map((e) => `| [${e.code}](#${e.docs_anchor}) | ${e.status} |`).join("\n")}

## Codes

${entries.join("\n")}`,
  };
}
