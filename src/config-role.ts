// ROLE: what one build of the service does in this process, so an operator scales the HTTP side
// and the background side apart. "all" (default) serves every surface and runs every worker;
// "api" serves the HTTP surfaces and runs no background work; "worker" runs the scheduled jobs, the
// webhook deliveries, the mail and the bot messages and serves no surface (METRICS_PORT still
// answers /metrics, /up and /ready). SURFACES and WORKER refine ROLE=all; under api or worker they
// may narrow the role but never contradict it.
import { ConfigError, type Env } from "./config-values.ts";

export const ROLES = ["all", "api", "worker"] as const;
export type Role = (typeof ROLES)[number];

export interface ProcessRole {
  role: Role;
  /** The surfaces this process serves, validated against `available`. */
  surfaces: string[];
  /** Whether it runs the background work (jobs, deliveries, mail, bot messages). */
  worker: boolean;
}

function roleSetting(env: Env): Role {
  const raw = (env.ROLE ?? "all").trim().toLowerCase() || "all";
  if (!(ROLES as readonly string[]).includes(raw)) throw new ConfigError(`ROLE must be one of ${ROLES.join(", ")}, got "${env.ROLE}"`);
  return raw as Role;
}

/** WORKER: on or off, or null when unset (the role decides). */
function workerSetting(env: Env): boolean | null {
  if (env.WORKER === undefined || env.WORKER.trim() === "") return null;
  const raw = env.WORKER.trim().toLowerCase();
  if (raw === "on") return true;
  if (raw === "off") return false;
  throw new ConfigError(`WORKER must be on or off, got "${env.WORKER}"`);
}

/** ROLE, SURFACES and WORKER read together: the surfaces and the worker of this process, or a refusal in words. */
export function processRole(env: Env, available: readonly string[]): ProcessRole {
  const role = roleSetting(env);
  const listed =
    env.SURFACES === undefined
      ? null
      : env.SURFACES.split(",")
          .map((s) => s.trim())
          .filter(Boolean);
  // "worker" in SURFACES names the worker like a surface: SURFACES=worker runs a worker alone.
  const named = (listed ?? []).filter((s) => s !== "worker");
  for (const s of named) {
    if (!available.includes(s))
      throw new ConfigError(`SURFACES: unknown or unavailable surface "${s}" (available: ${[...available, "worker"].join(", ")})`);
  }
  const worker = workerSetting(env);
  if (role === "api") {
    if (worker === true || listed?.includes("worker"))
      throw new ConfigError(
        "ROLE=api runs no background work, but WORKER=on or SURFACES=worker asks for it: set ROLE=all, or leave the worker to ROLE=worker processes",
      );
    const surfaces = listed === null ? [...available] : named;
    if (surfaces.length === 0)
      throw new ConfigError("ROLE=api with an empty SURFACES would serve nothing: name the surfaces or leave SURFACES unset");
    return { role, surfaces, worker: false };
  }
  if (role === "worker") {
    if (named.length > 0)
      throw new ConfigError(
        `ROLE=worker serves no HTTP surface, but SURFACES names ${named.join(", ")}: set ROLE=all, or run those in ROLE=api processes`,
      );
    if (worker === false) throw new ConfigError("ROLE=worker with WORKER=off would run nothing: leave WORKER unset");
    return { role, surfaces: [], worker: true };
  }
  const surfaces = listed === null ? [...available] : named;
  const runs = worker ?? true;
  if (listed?.includes("worker") && !runs) throw new ConfigError("SURFACES names the worker but WORKER=off: choose one");
  if (!runs && surfaces.length === 0) throw new ConfigError("SURFACES is empty and WORKER=off: this process would run nothing");
  return { role, surfaces, worker: runs };
}
