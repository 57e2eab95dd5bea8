// The fenced code blocks of the READMEs and the guides (issue 47: "samples in the READMEs and docs are
// run by a test against npm start as written"). Every block is classified here, in the order it appears:
// "run" (test/flows/doc-samples.slow.test.ts runs it against a fresh npm start) or the reason it is
// an explanation rather than a program (a fragment of the sample before it, output, a layout, a
// command of another tool). test/docs/doc-samples.test.ts fails on a block this table does not name.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const GUIDES = "src/apps/docs/pages/guides";

export interface DocBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string's language (`ts`, `sh`, `json`, or "" for none). */
  language: string;
  code: string;
}

/** The files whose blocks are samples: the two READMEs and every guide. */
export function sampleFiles(): string[] {
  const guides = readdirSync(join(ROOT, GUIDES))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `${GUIDES}/${name}`);
  return ["README.md", "sdk/README.md", ...guides];
}

export function docBlocks(file: string): DocBlock[] {
  const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((text, j) => j > i && text.startsWith("```"));
    if (end < 0) throw new Error(`${file}:${i + 1}: a code block is not closed`);
    blocks.push({ file, line: i + 1, language: open[1]!, code: lines.slice(i + 1, end).join("\n") + "\n" });
    i = end;
  }
  return blocks;
}

const FRAGMENT = "a fragment: continues the section's first sample (its sb, project and ids)";
const SETUP = "setting up: installs or builds packages, or starts a process";

/** Per file, each block in order: its first line's start, then "run" or why it is not run. */
export const CLASSIFIED: Record<string, [first: string, verdict: string][]> = {
  "README.md": [
    ["npm ci && npm start", SETUP],
    ["SubBridge 3.0.0", "output: the start banner"],
    ["TOKEN=sbt_test_1_", "run"],
    ["curl http://localhost:4001/", "run"],
    ["npm test", "the test commands (the suite does not run itself)"],
    ["npm run cli -- creator:create", "operator commands with the reader's own e-mail addresses and ids"],
    ["spec/", "a layout of the repository"],
    ["REST (src/apps/api)", "a diagram of the request pipeline"],
  ],
  "sdk/README.md": [
    ["npm install @subbridge/sdk", SETUP],
    ["npm ci && npm run sdk:pack", SETUP],
    ['import { createClient } from "@subbridge/sdk";', "run"],
    ["const page = await sb.GET(", FRAGMENT],
    ["const { data, error, response } = await sb.raw.GET(", FRAGMENT],
    ["await sb.tokens.create(", FRAGMENT],
    ["const sb = createClient({ baseUrl, token, timeoutMs", FRAGMENT],
    ['import { AbortedError } from "@subbridge/sdk";', FRAGMENT],
    ["import { PermissionError, NotFoundError", FRAGMENT],
    ["const first = await sb.plans.list(", FRAGMENT],
    ["SB-Signature: t=", "a header's format"],
    ['import express from "express";', "a webhook receiver: a server waiting for deliveries (test/sdk/readme.test.ts compiles it)"],
    ['router.post("/subbridge/webhooks"', "a webhook receiver in another framework"],
    ["export async function POST(request: Request)", "a webhook receiver in another framework"],
    ["import { verifyWebhook, type WebhookEventOf }", "a webhook receiver's handler (compiled by test/sdk/readme.test.ts)"],
    ['import { createServer } from "node:http";', "a webhook receiver: a server waiting for deliveries"],
    ['import { createClient } from "redis";', "a recipe for the reader's Redis (compiled by test/sdk/readme.test.ts)"],
    ['import { signWebhookPayload } from "@subbridge/sdk/webhooks";', "posts to the reader's own receiver (localhost:3000)"],
    ["Content-Digest: sha-256=", "a header's format"],
    ['import { createServer } from "node:http";', "a webhook receiver: a server waiting for deliveries"],
    ['import { readFile } from "node:fs/promises";', "a connector author's check of their own connector.json"],
    ["import { readStartPayload, commandStartPayload }", "a connector author's bot code"],
    ["npx -p @subbridge/sdk subbridge-connector validate", "run by test/sdk/packaging.slow.test.ts on the packed tarball"],
    ["npx subbridge-connector validate", "run by test/sdk/packaging.slow.test.ts on the packed tarball"],
    ["{", "a connector.json excerpt"],
    ["npm ci && npm run sdk:release -- --dry-run", "run by test/sdk/release.slow.test.ts (and CI)"],
    ["npm ci && npm run sdk:publish:check", "publishes to the registry (a maintainer's release)"],
  ],
  [`${GUIDES}/broadcasts.md`]: [['import { createClient } from "@subbridge/sdk";', "sends a broadcast, which needs members on a connected platform"]],
  [`${GUIDES}/mcp.md`]: [
    [
      'import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";',
      "run as written by test/mcp/client-setup.test.ts (the official client, from the rendered guide)",
    ],
    ["# OAuth: add the server", "a command of another tool (Claude Code)"],
    ["{", "an MCP client's configuration"],
    ["{", "an MCP client's configuration"],
    ["{", "an MCP client's configuration"],
    ["claude mcp add", "a command of another tool (Claude Code)"],
    ['{ "servers"', "an MCP client's configuration"],
  ],
  [`${GUIDES}/rest-api.md`]: [
    ["npm install @subbridge/sdk", SETUP],
    ['import { createClient, PermissionError } from "@subbridge/sdk";', "run"],
    ['curl -H "Authorization: Bearer $SUBBRIDGE_TOKEN" {base_url}', "run"],
    ["await sb.tokens.create(", FRAGMENT],
    ["{", "an answer's shape"],
    ["{", "an answer's shape"],
  ],
  [`${GUIDES}/webhooks.md`]: [
    ['import { createClient } from "@subbridge/sdk";', "run"],
    ["POST /subbridge HTTP/1.1", "a delivery's format"],
    ['import { createServer } from "node:http";', "a webhook receiver: a server waiting for deliveries"],
    ["import { signWebhookPayload, verifyWebhook }", "run"],
  ],
};

/** The blocks to run, each with its place for messages. */
export function runnableBlocks(): DocBlock[] {
  return sampleFiles().flatMap((file) => docBlocks(file).filter((_, i) => CLASSIFIED[file]?.[i]?.[1] === "run"));
}
