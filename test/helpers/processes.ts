// Runs the project's own commands (npm start, npm run cli) as a newcomer would.
import { spawn, type ChildProcess } from "node:child_process";
import { randomInt } from "node:crypto";
import { createServer } from "node:net";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { holdOpen } from "./open-resources.ts";
import { DEMO_CREDENTIALS_FILE } from "../../src/first-start.ts";

export const ROOT = new URL("../..", import.meta.url).pathname;

export function tempDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `subbridge-${label}-`));
}

/**
 * Ports handed to a process the test starts come from below the kernel's ephemeral range
 * (32768-60999 on Linux): a port the kernel hands out meanwhile (another process's listen(0), an
 * outgoing connection) can never take one between this check and the child's listen.
 */
const CHILD_PORTS = { from: 20_000, to: 32_767 };

/** A port free now on 127.0.0.1, for a process the test starts. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = CHILD_PORTS.from + randomInt(CHILD_PORTS.to - CHILD_PORTS.from + 1);
    const server = createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => resolve(true));
    });
    if (free) {
      await new Promise((resolve) => server.close(resolve));
      return port;
    }
  }
}

/** What the first start on an empty embedded database prints last (stdout here is no terminal: the secrets go to a file). */
export const FIRST_START_READY = /store them, then delete the file\.\n/;

/** The demo token the first start wrote to DATA_DIR's credentials file (sbt_test_: an embedded start is a sandbox by default). */
export function firstStartToken(dataDir: string): string {
  const secrets = readFileSync(join(dataDir, DEMO_CREDENTIALS_FILE), "utf8");
  return /token\s+(sbt_(?:live|test)_\d+_[A-Za-z0-9]+)/.exec(secrets)![1]!;
}

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run -s <script> -- args` in the repository, with extra environment. */
export function runNpm(script: string, args: string[], env: Record<string, string>): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "-s", script, "--", ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A TypeScript program of the repository (a worker for a multi-process test) run by node with tsx,
 * resolved once it prints `ready` on standard output; rejected if it exits first.
 */
export function startProgram(path: string, env: Record<string, string>, ready: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--conditions=subbridge-source", path], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    child.stdout!.on("data", (d: Buffer) => d.toString().includes(ready) && resolve(child));
    child.on("exit", (code) => reject(new Error(`${path} exited (${code}) before it was ready`)));
  });
}

export interface StartedProcess {
  child: ChildProcess;
  output: () => string;
  stop(): Promise<number | null>;
}

/** How long `npm start` may take to print what a test waits for, and to exit on SIGTERM. */
const START_DEADLINE_MS = 90_000;
const STOP_DEADLINE_MS = 40_000;

/**
 * `npm start` (or `npm run <script>`, e.g. start:prod) in a process group of its own, resolved once
 * `ready` matches the output; rejected with the output so far when the process exits first or
 * `ready` has not appeared within the deadline (the process is then stopped), so a stalled start
 * fails with what it printed instead of the test's bare timeout.
 */
export function startNpm(env: Record<string, string>, ready: RegExp, deadlineMs = START_DEADLINE_MS, script = "start"): Promise<StartedProcess> {
  return new Promise((resolve, reject) => {
    const began = Date.now();
    const args = script === "start" ? ["start"] : ["run", script];
    const child = spawn("npm", args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let out = "";
    const signal = (name: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, name);
      } catch {
        // The group has already gone.
      }
    };
    const stop = () =>
      new Promise<number | null>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done(child.exitCode);
        const kill = setTimeout(() => signal("SIGKILL"), STOP_DEADLINE_MS);
        child.once("close", (code) => {
          clearTimeout(kill);
          done(code);
        });
        signal("SIGTERM");
      });
    const release = holdOpen(`npm start (pid ${child.pid})`, stop);
    child.once("close", release);
    const started: StartedProcess = { child, output: () => out, stop };
    const deadline = setTimeout(() => {
      reject(new Error(`npm start printed no ${ready} within ${deadlineMs} ms; its output:\n${out}`));
      void stop();
    }, deadlineMs);
    const onData = (d: Buffer) => {
      out += d;
      if (ready.test(out)) {
        clearTimeout(deadline);
        resolve(started);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("close", (code) => {
      clearTimeout(deadline);
      reject(new Error(`npm start exited with ${code} after ${Date.now() - began} ms:\n${out}`));
    });
  });
}
