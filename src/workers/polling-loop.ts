// The loop of a worker that drains a queue: run a batch, and when it found less than a full batch,
// wait `idlePollMs` (or until stopped) before looking again. A batch that throws is logged and the
// loop goes on: what it claimed and did not record is claimed again when its lease runs out.
import type { Logger } from "pino";

export interface PollingLoop {
  /** Starts no more batches and waits for the one in flight. */
  stop(): Promise<void>;
}

export function startPollingLoop(options: {
  logger: Logger;
  /** What to log when a batch fails. */
  failure: string;
  idlePollMs: number;
  /** One batch; answers whether it was full (more may be due: look again at once). */
  batch(): Promise<boolean>;
}): PollingLoop {
  let running = true;
  let wake: (() => void) | null = null;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const loop = (async () => {
    while (running) {
      let full = false;
      try {
        full = await options.batch();
      } catch (err) {
        options.logger.error({ err }, options.failure);
      }
      if (!full && running) await pause(options.idlePollMs);
    }
  })();
  return {
    async stop() {
      running = false;
      wake?.();
      await loop;
    },
  };
}
