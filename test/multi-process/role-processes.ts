// What the multi-process role tests share: `npm start` as ROLE=api or ROLE=worker on one PostgreSQL
// (and Redis when the leg has one), a webhook receiver on loopback that notes every event it is
// sent, and REST writes retried with their Idempotency-Key until one process answers them.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { freePort, startNpm, type StartedProcess } from "../helpers/processes.ts";
import { TEST_APP_KEY } from "../helpers/server.ts";

/** What `npm start` prints last, with or without a creator in the database. */
export const BANNER = /Need a token\?.*\n|No creator yet.*\n[\s\S]*token:mint.*\n/;

export interface RoleProcess {
  role: "api" | "worker";
  process: StartedProcess;
  /** The REST API's address (api only). */
  api: string | null;
  /** SIGKILL to the process group (npm and the server it runs): no graceful stop. */
  kill(): void;
  /** Whether the process (npm and the server it runs) is still running. */
  running(): boolean;
}

/** `npm start` in `role` on `databaseUrl`; an api serves REST and MCP on free ports. */
export async function startRole(role: "api" | "worker", env: Record<string, string>): Promise<RoleProcess> {
  const ports: Record<string, string> = role === "api" ? { API_PORT: String(await freePort()), MCP_PORT: String(await freePort()) } : {};
  const started = await startNpm(
    {
      ROLE: role,
      ...(role === "api" ? { SURFACES: "api,mcp" } : {}),
      ...ports,
      APP_KEY: TEST_APP_KEY.toString("hex"),
      LOG_LEVEL: "warn",
      WEBHOOK_ALLOW_HTTP: "on",
      WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8",
      WEBHOOK_TIMEOUT_MS: "5000",
      ...(process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL } : {}),
      ...env,
    },
    BANNER,
  );
  return {
    role,
    process: started,
    api: ports.API_PORT ? `http://127.0.0.1:${ports.API_PORT}` : null,
    kill() {
      try {
        process.kill(-started.child.pid!, "SIGKILL");
      } catch {
        // The group has already gone.
      }
    },
    running: () => started.child.exitCode === null && started.child.signalCode === null,
  };
}

/** An http receiver on loopback answering 200 after `delayMs`, noting each event id it was sent (repeats included). */
export async function eventReceiver(
  delayMs = 10,
): Promise<{ server: Server; url: string; posts: string[]; received: Set<string>; close(): Promise<void> }> {
  const posts: string[] = [];
  const received = new Set<string>();
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const id = String(req.headers["sb-event-id"]);
      posts.push(id);
      setTimeout(() => {
        received.add(id);
        res.writeHead(200).end("ok");
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    server,
    url,
    posts,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One REST call: its status and body, or status 0 when no answer came (the process died, say). */
export async function call(base: string, token: string, method: string, path: string, body?: unknown, key?: string) {
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...(key ? { "idempotency-key": key } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(30_000),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> | null, headers: res.headers };
  } catch {
    return { status: 0, body: null, headers: new Headers() };
  }
}

/**
 * A write sent to the first process of `bases` that still answers, and again under the same
 * Idempotency-Key to the next one while none answers 2xx (no answer, a 5xx, or 425 while another
 * process still holds the key), for up to `limitMs`: the service must apply it once.
 */
export async function writeOnce(
  bases: () => string[],
  token: string,
  method: string,
  path: string,
  body: unknown,
  limitMs = 90_000,
): Promise<{ status: number; body: Record<string, unknown> | null; servedBy: string; attempts: number; sentAt: number }> {
  const key = crypto.randomUUID();
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    const candidates = bases();
    const base = candidates[(attempt - 1) % candidates.length]!;
    // When the answered attempt was sent: an answer sent before a kill may arrive after it.
    const sentAt = Date.now();
    const answer = await call(base, token, method, path, body, key);
    if (answer.status >= 200 && answer.status < 300) return { status: answer.status, body: answer.body, servedBy: base, attempts: attempt, sentAt };
    const retryable = answer.status === 0 || answer.status >= 500 || answer.status === 409 || answer.status === 425 || answer.status === 429;
    if (!retryable || Date.now() - started > limitMs)
      throw new Error(`${method} ${path} answered ${answer.status} after ${attempt} attempts: ${JSON.stringify(answer.body)}`);
    await new Promise((r) => setTimeout(r, Math.min(2_000, 100 * attempt)));
  }
}

/** Polls `check` every 200 ms until it holds; throws naming `what` past `limitMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, limitMs: number): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > limitMs) throw new Error(`gave up waiting ${limitMs / 1000} s: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
