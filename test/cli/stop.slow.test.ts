// SIGTERM to the process a supervisor starts - `npm start`, and `npm run start:prod` - stops the
// server: sent to npm alone (as systemd's main-process kill or `docker stop` send it), under load,
// the port stops answering, a request in flight is answered, every process of the tree is gone,
// and the stop finished within its deadline (nothing was cut short).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { FIRST_START_READY, firstStartToken, freePort, ROOT, startNpm, tempDir, type StartedProcess } from "../helpers/processes.ts";

const SURFACES = ["API", "MCP", "AUTH", "SITE", "DOCS", "PORTAL", "DASHBOARD"] as const;

async function startEnv(): Promise<{ env: Record<string, string>; dataDir: string; apiPort: number }> {
  const dataDir = tempDir("stop");
  const env: Record<string, string> = { DATA_DIR: dataDir, LOG_LEVEL: "warn" };
  for (const surface of SURFACES) env[`${surface}_PORT`] = String(await freePort());
  return { env, dataDir, apiPort: Number(env.API_PORT) };
}

/** Whether a TCP connection to the port is refused (nothing listens any more). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", (err: NodeJS.ErrnoException) => resolve(err.code === "ECONNREFUSED"));
  });
}

async function eventually(what: string, check: () => boolean | Promise<boolean>, limitMs = 45_000): Promise<void> {
  const until = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > until) assert.fail(`${what} within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Whether any process of the group `pgid` (npm and everything it started) is still there. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A project creation whose body is sent in two halves: the server has read the headers and waits
 * for the rest when the test signals, so the request is in flight across the stop.
 */
async function halfSentWrite(port: number, token: string): Promise<{ finish(): Promise<string> }> {
  const body = Buffer.from(JSON.stringify({ name: "Created across a stop" }));
  const socket: Socket = connect(port, "127.0.0.1");
  await new Promise((r) => socket.once("connect", r));
  let answer = "";
  socket.on("data", (d: Buffer) => (answer += d.toString("utf8")));
  const ended = new Promise<void>((r) => socket.once("close", () => r()));
  socket.write(
    [
      "POST /v1/projects HTTP/1.1",
      `Host: 127.0.0.1:${port}`,
      `Authorization: Bearer ${token}`,
      "Content-Type: application/json",
      `Idempotency-Key: ${crypto.randomUUID()}`,
      `Content-Length: ${body.length}`,
      "",
      "",
    ].join("\r\n"),
  );
  socket.write(body.subarray(0, 5));
  return {
    async finish() {
      socket.write(body.subarray(5));
      await Promise.race([ended, new Promise((r) => setTimeout(r, 20_000))]);
      return answer;
    },
  };
}

/** Requests in a loop until the server stops answering; answers must be whole, never a 5xx. */
function load(port: number, token: string, workers = 4) {
  const statuses: number[] = [];
  let running = true;
  const loops = Array.from({ length: workers }, async () => {
    while (running) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/v1/teams/current`, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        statuses.push(res.status);
      } catch {
        // Refused or closed while idle: the listener is gone; the loop ends once the test says so.
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  });
  return {
    statuses,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** Sends SIGTERM to npm alone and checks the stop: port closed, the write in flight answered, the tree gone. */
async function stopUnderLoad(started: StartedProcess, apiPort: number, token: string): Promise<void> {
  const pgid = started.child.pid!;
  const traffic = load(apiPort, token);
  await eventually("the first answers under load", () => traffic.statuses.length >= 20);
  const write = await halfSentWrite(apiPort, token);
  const exited = new Promise<number | null>((r) => started.child.once("close", (code) => r(code)));

  process.kill(pgid, "SIGTERM");
  await eventually("the port stops answering", () => refused(apiPort));
  const answer = await write.finish();
  assert.match(answer, /^HTTP\/1\.1 201 /, `the write in flight is answered: ${answer.slice(0, 300)}`);
  assert.match(answer, /"name":"Created across a stop"/);

  const code = await exited;
  await traffic.stop();
  assert.equal(code, 0, started.output());
  await eventually("every process of the tree exits", () => !groupAlive(pgid), 15_000);
  assert.ok(traffic.statuses.length >= 20);
  assert.deepEqual(
    traffic.statuses.filter((s) => s !== 200),
    [],
    "every answer under load was whole and a success",
  );
  assert.doesNotMatch(started.output(), /did not finish in time/, "the stop drained within its deadline");
}

describe("stopping on SIGTERM", function () {
  this.timeout(240_000);
  const running: StartedProcess[] = [];
  after(async () => {
    for (const p of running) await p.stop();
  });

  it("[embedded] npm start: SIGTERM to npm alone, under load, answers what is in flight and leaves no process", async () => {
    const { env, dataDir, apiPort } = await startEnv();
    const started = await startNpm(env, FIRST_START_READY);
    running.push(started);
    await stopUnderLoad(started, apiPort, firstStartToken(dataDir));
  });

  it("[embedded] npm run start:prod (the build): SIGTERM to npm alone stops the server the same way", async () => {
    assert.ok(existsSync(join(ROOT, "dist/src/main.js")), "dist/ is built first (npm run build; CI builds before the tests)");
    const { env, dataDir, apiPort } = await startEnv();
    const started = await startNpm(env, FIRST_START_READY, undefined, "start:prod");
    running.push(started);
    await stopUnderLoad(started, apiPort, firstStartToken(dataDir));
  });
});
