// How `npm start` comes up while its database or Redis is not there (a failover, a restart while
// a deployment rolls out): the listeners answer first (src/http/starting-app.ts), and each start
// step that meets an outage is tried again, waiting longer each time up to a few seconds, until it
// succeeds; readiness says 503 meanwhile and the process never exits for it. Any other failure
// ends the start as before, and a stop (SIGTERM) ends the waiting.
import type { Logger } from "pino";
import { isDatabaseUnreachable } from "./db/outage.ts";
import { isDatabaseTimeout } from "./db/timeouts.ts";
import { KvUnavailableError } from "./kv/kv.ts";

/** Thrown by a step's wait once the process is stopping: the shutdown, not the start, ends the process. */
export class StartStopped extends Error {}

export interface StartDelays {
  /** The wait after a step's first failure; each next one doubles it... */
  firstMs: number;
  /** ... up to this. */
  maxMs: number;
}

export const DEFAULT_START_DELAYS: StartDelays = { firstMs: 500, maxMs: 5_000 };

/**
 * An outage that passes by itself: the database unreachable or refusing sessions, a bound it set
 * while failing over, Redis unreachable, or the deadlock and serialization failures of processes
 * setting up one schema together.
 */
export function isPassingOutage(err: unknown): boolean {
  if (isDatabaseUnreachable(err) || isDatabaseTimeout(err) || err instanceof KvUnavailableError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return code === "40P01" || code === "40001";
}

export interface StartSteps {
  /** `step`'s result, trying again after each passing outage (see the header). */
  run<T>(what: string, step: () => Promise<T>): Promise<T>;
  /** Ends every wait: run() throws StartStopped. */
  stop(): void;
}

export function startSteps(logger: Logger, delays: StartDelays = DEFAULT_START_DELAYS): StartSteps {
  const stopping = new AbortController();
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      stopping.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
    });
  return {
    async run(what, step) {
      for (let attempt = 1, delay = delays.firstMs; ; attempt++, delay = Math.min(delay * 2, delays.maxMs)) {
        if (stopping.signal.aborted) throw new StartStopped(`stopped before ${what}`);
        try {
          const result = await step();
          if (attempt > 1) logger.info({ step: what, attempt }, "start step done after an outage");
          return result;
        } catch (err) {
          if (stopping.signal.aborted) throw new StartStopped(`stopped during ${what}`);
          if (!isPassingOutage(err)) throw err;
          logger.warn({ step: what, attempt, retry_in_ms: delay, err: (err as Error).message }, "start step met an outage; trying again");
          await pause(delay);
        }
      }
    },
    stop() {
      stopping.abort();
    },
  };
}
