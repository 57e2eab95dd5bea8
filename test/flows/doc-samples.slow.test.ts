// Issue 47: the samples of README.md, sdk/README.md and the guides run against a fresh `npm start` (an
// empty DATA_DIR, its demo account) as written. The only changes are the ones the text asks of the
// reader: the printed token (TOKEN=..., SUBBRIDGE_TOKEN), the addresses the start banner prints for
// localhost:4000 / 4001 and the guides' {base_url} (which the reference site fills in), the address
// a sample marks "your receiver's address" (a local one, allowed by WEBHOOK_ALLOWED_CIDRS), and
// TELEGRAM_BOT_TOKEN (the simulated Telegram takes any well-formed one). test/helpers/doc-samples.ts
// says which blocks run; the others are explanations.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes, randomInt } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { FIRST_START_READY, firstStartToken, freePort, startNpm, tempDir, type StartedProcess } from "../helpers/processes.ts";
import { ROOT, runnableBlocks, type DocBlock } from "../helpers/doc-samples.ts";

const SDK = JSON.stringify(join(ROOT, "sdk/src/index.ts"));
const SDK_WEBHOOKS = JSON.stringify(join(ROOT, "sdk/src/webhooks.ts"));
/** A first start on an empty embedded database migrates it: on a loaded 2-core machine that has taken over 90 s. */
const FIRST_START_DEADLINE_MS = 240_000;

describe("issue 47: the README and guide samples run against npm start as written", function () {
  this.timeout(400_000);
  let running: StartedProcess;
  let token: string;
  let dataDir: string;
  let folder: string;
  let apiOrigin: string;
  let receiverUrl: string;
  let mcpOrigin: string;
  let env: Record<string, string>;
  let runs = 0;

  before(async () => {
    dataDir = tempDir("doc-samples");
    const names = ["API_PORT", "MCP_PORT", "AUTH_PORT", "SITE_PORT", "DOCS_PORT", "PORTAL_PORT", "DASHBOARD_PORT"];
    const ports: Record<string, string> = {};
    for (const name of names) ports[name] = String(await freePort());
    // The webhook guide's endpoint is the reader's receiver: here an address on this machine, over plain HTTP.
    const webhooks = { WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8", WEBHOOK_ALLOW_HTTP: "on" };
    running = await startNpm({ DATA_DIR: dataDir, LOG_LEVEL: "warn", ...ports, ...webhooks }, FIRST_START_READY, FIRST_START_DEADLINE_MS);
    receiverUrl = `http://127.0.0.1:${await freePort()}/subbridge`;
    token = firstStartToken(dataDir);
    folder = mkdtempSync(join(tmpdir(), "subbridge-doc-samples-"));
    const banner = running.output();
    const api = /REST API\s+(http:\/\/\S+)\/v1/.exec(banner)?.[1];
    const mcp = /MCP server\s+(http:\/\/\S+)/.exec(banner)?.[1];
    assert.ok(api && mcp, `the banner names the REST API and the MCP server:\n${banner}`);
    [apiOrigin, mcpOrigin] = [api, mcp];
    env = {
      TOKEN: token,
      SUBBRIDGE_TOKEN: token,
      TELEGRAM_BOT_TOKEN: `${randomInt(1_000_000_000, 9_000_000_000)}:${randomBytes(27).toString("base64url")}`,
    };
  });

  after(async () => {
    if (running) assert.equal(await running.stop(), 0, "npm start exits cleanly on SIGTERM");
    for (const dir of [folder, dataDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The block with the reader's substitutions made. */
  function asTheReaderRunsIt(block: DocBlock): string {
    return block.code
      .replace(/^TOKEN=\S+/m, `TOKEN=${token}`)
      .replaceAll("http://localhost:4000", apiOrigin)
      .replaceAll("https://api.subbridge.example", apiOrigin)
      .replaceAll("http://localhost:4001", mcpOrigin)
      .replaceAll("{base_url}", apiOrigin)
      .replace(/"https:\/\/hooks\.example\.com\/subbridge", \/\/ your receiver's address/, `"${receiverUrl}", // your receiver's address`);
  }

  /** Runs a TypeScript sample as an ES module in this process (tsx compiles it); answers what it printed. */
  async function runModule(block: DocBlock, code: string): Promise<string[]> {
    const file = join(folder, `sample-${++runs}.mts`);
    writeFileSync(file, code.replaceAll('"@subbridge/sdk/webhooks"', SDK_WEBHOOKS).replaceAll('"@subbridge/sdk"', SDK));
    const printed: string[] = [];
    const log = console.log;
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    Object.assign(process.env, env);
    console.log = (...args: unknown[]) => void printed.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "));
    try {
      await import(pathToFileURL(file).href);
    } catch (error) {
      const detail = JSON.stringify((error as { fields?: unknown }).fields ?? (error as { code?: unknown }).code ?? "");
      throw new Error(`${block.file}:${block.line} failed: ${(error as Error).message} ${detail}\n${code}`);
    } finally {
      console.log = log;
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
    return printed;
  }

  /** Runs a shell sample with bash, stopping at the first failing command; answers its output. */
  function runShell(block: DocBlock, code: string): string {
    const run = spawnSync("bash", ["-e", "-o", "pipefail", "-c", code], { encoding: "utf8", env: { ...process.env, ...env }, timeout: 60_000 });
    assert.equal(run.status, 0, `${block.file}:${block.line} failed (exit ${run.status}):\n${run.stdout}\n${run.stderr}\n${code}`);
    assert.doesNotMatch(run.stdout, /"error"\s*:\s*\{|"isError"\s*:\s*true/, `${block.file}:${block.line} answered an error:\n${run.stdout}`);
    return run.stdout;
  }

  for (const block of runnableBlocks()) {
    it(`[embedded] runs ${block.file}:${block.line} (${block.code.split("\n")[0]})`, async () => {
      const code = asTheReaderRunsIt(block);
      if (block.language === "sh") {
        const output = runShell(block, code);
        assert.match(output, /"data"|"result"/, `${block.file}:${block.line} printed no answer:\n${output}`);
      } else {
        assert.equal(block.language, "ts");
        const printed = await runModule(block, code);
        assert.ok(printed.length > 0, `${block.file}:${block.line} printed nothing`);
      }
    });
  }
});
