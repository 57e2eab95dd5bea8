// `npm start` (src/main.ts) refuses an invalid connector package before it opens anything, and
// serves the catalog it loaded once the packages are valid.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connectorsFolder, editJson, removeConnectorsFolders } from "./connector-folders.ts";
import { FIRST_START_READY, firstStartToken, freePort } from "../helpers/processes.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The environment of a fresh embedded start: no outside backends, data under a temp folder. */
function startEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "silent", HOST: "127.0.0.1", ...extra };
  for (const name of ["DATABASE_URL", "REDIS_URL", "APP_KEY", "CONNECTORS_DIR", "SURFACES", "API_PORT", "BASE_URL"])
    if (!(name in extra)) delete env[name];
  return env;
}

interface Exited {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command in its own process group so the whole tree (npx, tsx, node) can be stopped. */
function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  const child = spawn(command, args, { ...options, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<Exited>((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

function stop(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM") {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    /* already gone */
  }
}

async function within<T>(ms: number, what: string, promise: Promise<T>, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(`${what} took longer than ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe("npm start with connector packages", () => {
  const dataDirs: string[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "subbridge-data-"));
    dataDirs.push(dir);
    return dir;
  };
  after(() => {
    removeConnectorsFolders();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  it("exits 1 before opening anything when a package is invalid, naming the file and every problem", async function () {
    this.timeout(40_000);
    const connectors = connectorsFolder();
    let added = -1;
    editJson(join(connectors, "telegram/connector.json"), (m) => {
      m.listing.tagline = "t".repeat(81);
      added = m.capabilities.push("teleportation") - 1;
    });
    const data = join(dataDir(), "never-created");
    const started = run("npx", ["tsx", "--conditions=subbridge-source", "src/main.ts"], {
      cwd: ROOT,
      env: startEnv({ CONNECTORS_DIR: connectors, DATA_DIR: data }),
    });
    const { code, stderr, stdout } = await within(30_000, "the refused start", started.exited, () => stop(started.child, "SIGKILL"));

    assert.equal(code, 1, `exit code (stdout: ${stdout})`);
    assert.match(stderr, new RegExp(`${join(connectors, "telegram/connector.json")} is invalid:\n`));
    assert.match(stderr, /\n {2}\/listing\/tagline: listing\.tagline must be at most 80 characters \(it has 81\)\n/);
    assert.match(stderr, new RegExp(`\\n {2}/capabilities/${added}: capabilities\\[${added}\\] must be one of .* \\(it is "teleportation"\\)\\n`));
    assert.match(stderr, /Fix the files above \(or remove the package folder\) and start again\./);
    assert.doesNotMatch(stderr, /at loadConnectorRegistry/, "a message, not a stack trace");
    assert.ok(!existsSync(data), "no database was created");
  });

  it("starts from any directory with the repository's packages and serves their catalog", async function () {
    this.timeout(90_000);
    const port = await freePort();
    const tsx = join(ROOT, "node_modules/.bin/tsx");
    const cwd = dataDir();
    const started = run(tsx, ["--conditions=subbridge-source", join(ROOT, "src/main.ts")], {
      cwd,
      env: startEnv({ DATA_DIR: join(cwd, "data"), SURFACES: "api", API_PORT: String(port) }),
    });
    try {
      const banner = await within(
        75_000,
        "the start",
        (async () => {
          while (!FIRST_START_READY.test(started.output().stdout)) {
            if (started.child.exitCode !== null) throw new Error(`main exited ${started.child.exitCode}: ${started.output().stderr}`);
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          return started.output().stdout;
        })(),
        () => stop(started.child, "SIGKILL"),
      );
      assert.match(banner, new RegExp(`Connectors {4}discord, telegram \\(from ${join(ROOT, "connectors")}\\)`));
      const token = firstStartToken(join(cwd, "data"));
      const res = await fetch(`http://127.0.0.1:${port}/v1/connectors?sort_by=key&sort_direction=asc`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { data: { key: string; status: string }[] };
      assert.deepEqual(
        body.data.map((c) => [c.key, c.status]),
        [
          ["discord", "available"],
          ["slack", "in_development"],
          ["telegram", "available"],
          ["whatsapp", "roadmap"],
        ],
      );
    } finally {
      stop(started.child);
      await within(15_000, "the shutdown", started.exited, () => stop(started.child, "SIGKILL")).catch(() => undefined);
    }
  });
});
