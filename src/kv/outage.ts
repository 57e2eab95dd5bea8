// Writes that must reach the KV store once it answers again, though the request that made them
// cannot wait for it: a credential's tombstone, an idempotency lock given back.
import { KvUnavailableError } from "./kv.ts";

/** How often a write waiting for the KV store is tried again. */
const RETRY_MS = 250;

/**
 * Runs `write`; when the KV store is unreachable, tries it again in the background every RETRY_MS
 * until it succeeds or `forMs` have passed (by then what it overrides has expired). Resolves after
 * the first try; any other error is thrown from it.
 */
export async function retryWhenReachable(write: () => Promise<unknown>, forMs: number): Promise<void> {
  try {
    await write();
  } catch (err) {
    if (!(err instanceof KvUnavailableError)) throw err;
    const until = Date.now() + forMs;
    const again = () => {
      if (Date.now() >= until) return;
      write().catch((err: unknown) => {
        if (err instanceof KvUnavailableError) setTimeout(again, RETRY_MS).unref();
      });
    };
    setTimeout(again, RETRY_MS).unref();
  }
}
