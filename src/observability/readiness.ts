// Readiness, apart from liveness (/up answers while the process runs): /ready answers 200 while
// the database and the KV store both answer within a short bound, 503 otherwise, 503 while the
// process is starting (its backends not open yet, or a start step waiting out an outage: see
// src/startup.ts) and 503 once it is stopping, so a load balancer or orchestrator sends traffic
// only where it can be served.
import type Koa from "koa";
import type { Database } from "../db/database.ts";
import type { Kv } from "../kv/kv.ts";

/** How long each backend has to answer a readiness check. */
export const READINESS_TIMEOUT_MS = 2_000;

/** "starting": not checked, the process has not opened the backend yet. */
export type CheckResult = "ok" | "unreachable" | "timeout" | "starting";

export interface Readiness {
  ready: boolean;
  checks: { database: CheckResult; kv: CheckResult; process: "starting" | "serving" | "stopping" };
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
  /** The backends a starting process has opened: checked from now on. */
  attach(backends: { db: Database; kv: Kv }): void;
  /** Every start step is done: ready whenever the backends answer. */
  markServing(): void;
  /** From now on the process answers not ready (it is draining before it exits). */
  markStopping(): void;
}

/**
 * Concurrent checks share one round trip per backend: a flood of /ready costs what one does. Given
 * its backends, the probe serves at once; a starting process attaches them and marks it serving.
 */
export function readinessProbe(deps: { db?: Database; kv?: Kv; timeoutMs?: number }): ReadinessProbe {
  const timeoutMs = deps.timeoutMs ?? READINESS_TIMEOUT_MS;
  let backends = deps.db && deps.kv ? { db: deps.db, kv: deps.kv } : null;
  let state: Readiness["checks"]["process"] = backends ? "serving" : "starting";
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
    const [database, kv]: CheckResult[] = backends
      ? await Promise.all([probe("the database", () => backends!.db.raw("select 1")), probe("the KV store", () => backends!.kv.get("readiness"))])
      : ["starting", "starting"];
    const process = state;
    return { ready: database === "ok" && kv === "ok" && process === "serving", checks: { database, kv, process } };
  };
  return {
    check() {
      running ??= run().finally(() => (running = null));
      return running;
    },
    attach(opened) {
      backends = opened;
    },
    markServing() {
      if (state === "starting") state = "serving";
    },
    markStopping() {
      state = "stopping";
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
