// The guides (REST API, MCP server, webhooks): Markdown files beside this module with the
// deployment's addresses filled in, and the few parts that come from the code (the toolsets, the
// retry ladder, the MCP install links) generated into them, so a guide cannot disagree with what
// the server does.
import type { MarkdownPage } from "../../site/pages/markdown-routes.ts";
import { readRepositoryText, readGeneratedJson } from "../../../repository-files.ts";
import { MAX_ATTEMPTS, RETRY_DELAYS_SECONDS } from "../../../modules/webhooks/ladder.ts";
import { withAddresses, type DocsAddresses } from "./addresses.ts";
import { cursorInstallMarkdown, vscodeInstallMarkdown } from "./mcp-install.ts";

interface ToolsetsFile {
  toolsets: { name: string; description: string; default?: boolean; tools: string[] }[];
}

function toolsetsTable(): string {
  const { toolsets } = readGeneratedJson<ToolsetsFile>("mcp-tools.json");
  const rows = toolsets.map((set) => `| \`${set.name}\` | ${set.default ? "yes" : ""} | ${set.tools.length} | ${set.description} |`);
  return ["| Toolset | Default | Tools | What it covers |", "|---|---|---|---|", ...rows].join("\n");
}

function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} seconds`;
  if (seconds < 3600) return `${seconds / 60} minutes`;
  return seconds === 3600 ? "1 hour" : `${seconds / 3600} hours`;
}

/** Attempt n+1 follows the n-th failure after the n-th delay; the last attempt has no successor. */
function retryLadder(): string {
  const rows = RETRY_DELAYS_SECONDS.slice(0, MAX_ATTEMPTS - 1).map((delay, i) => `| ${i + 2} | ${duration(delay)} after attempt ${i + 1} failed |`);
  return ["| Attempt | When |", "|---|---|", "| 1 | as soon as the event happens |", ...rows].join("\n");
}

const GUIDES = [
  {
    path: "/guides/rest-api",
    file: "rest-api.md",
    title: "REST API guide",
    description: "Authentication, idempotency, errors, pagination, rate limits and versioning of the SubBridge REST API.",
  },
  {
    path: "/guides/mcp",
    file: "mcp.md",
    title: "MCP server guide",
    description: "Connecting Claude, Cursor, VS Code and Windsurf to SubBridge's MCP server: toolsets, read-only mode and OAuth.",
  },
  {
    path: "/guides/webhooks",
    file: "webhooks.md",
    title: "Webhooks guide",
    description: "Verifying SB-Signature and the RFC 9421 signature of SubBridge webhooks, retries and de-duplication.",
  },
] as const;

export function guidePages(a: DocsAddresses): MarkdownPage[] {
  const fragments: Record<string, () => string> = {
    toolsets: toolsetsTable,
    retry_ladder: retryLadder,
    install_vscode: () => vscodeInstallMarkdown(a.mcpUrl),
    install_cursor: () => cursorInstallMarkdown(a.mcpUrl),
  };
  return GUIDES.map((guide) => {
    const text = withAddresses(readRepositoryText(`src/apps/docs/pages/guides/${guide.file}`), a);
    const markdown = text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
      const fragment = fragments[name];
      if (!fragment) throw new Error(`guide ${guide.file} names an unknown fragment {{${name}}}`);
      return fragment();
    });
    return { path: guide.path, title: guide.title, description: guide.description, markdown };
  });
}
