// Readiness, apart from liveness (/up answers while the process runs): /ready answers 200 while
// the database and the KV store both answer within a short bound, 503 otherwise, and 503 once the
// process is stopping, so a load balancer or orchestrator sends traffic only where it can be served.
import type Koa from "koa";
import type { Database } from "../db/database.ts";
import type { Kv } from "../kv/kv.ts";

/** How long each backend has to answer a readiness check. */
export const READINESS_TIMEOUT_MS = 2_000;

export type CheckResult = "ok" | "unreachable" | "timeout";

export interface Readiness {
  ready: boolean;
  checks: { database: CheckResult; kv: CheckResult; process: "serving" | "stopping" };
}

export class TimeoutError extends Error {}

/** `work`, or a TimeoutError once `ms` have passed (the work itself is left to finish or fail). */
export function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`${what} did not answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export interface ReadinessProbe {
  check(): Promise<Readiness>;
  /** From now on the process answers not ready (it is draining before it exits). */
  markStopping(): void;
}

/** Concurrent checks share one round trip per backend: a flood of /ready costs what one does. */
export function readinessProbe(deps: { db: Database; kv: Kv; timeoutMs?: number }): ReadinessProbe {
  const timeoutMs = deps.timeoutMs ?? READINESS_TIMEOUT_MS;
  let stopping = false;
  let running: Promise<Readiness> | null = null;
  const probe = async (what: string, work: () => Promise<unknown>): Promise<CheckResult> => {
    try {
      await withTimeout(work(), timeoutMs, what);
      return "ok";
    } catch (err) {
      return err instanceof TimeoutError ? "timeout" : "unreachable";
    }
  };
  const run = async (): Promise<Readiness> => {
    const [database, kv] = await Promise.all([
      probe("the database", () => deps.db.raw("select 1")),
      probe("the KV store", () => deps.kv.get("readiness")),
    ]);
    return { ready: database === "ok" && kv === "ok" && !stopping, checks: { database, kv, process: stopping ? "stopping" : "serving" } };
  };
  return {
    check() {
      running ??= run().finally(() => (running = null));
      return running;
    },
    markStopping() {
      stopping = true;
    },
  };
}

/** GET /ready: 200 {status: "ready", checks} or 503 {status: "not_ready", checks}; never cached. */
export function readinessRoute(probe: ReadinessProbe): Koa.Middleware {
  return async (ctx) => {
    const readiness = await probe.check();
    ctx.set("Cache-Control", "no-store");
    ctx.status = readiness.ready ? 200 : 503;
    ctx.body = { status: readiness.ready ? "ready" : "not_ready", checks: readiness.checks };
  };
}
