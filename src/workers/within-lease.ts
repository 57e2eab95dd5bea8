// A worker records what it did outside (a mail sent, a bot message posted) under its claim. A
// record that meets a database outage is tried again every second until the claim's lease would
// run out, so a send is not repeated because the database blinked; past that, or when the worker
// dies first, the lease runs out and the work is claimed again: at least once, by design, every copy
// carrying the row's Message-ID or id. A record is keyed by its claim, so trying again is safe.
import { isDatabaseUnreachable } from "../db/outage.ts";
import { isDatabaseTimeout } from "../db/timeouts.ts";

/** How long a record that met an outage waits before it is tried again. */
const RETRY_MS = 1_000;

/** `record()`, tried again after each database outage while the lease ending at `leaseEndsAtMs` (wall clock) lasts. */
export async function recordWithinLease<T>(record: () => Promise<T>, leaseEndsAtMs: number): Promise<T> {
  for (;;) {
    try {
      return await record();
    } catch (err) {
      const outage = isDatabaseUnreachable(err) || isDatabaseTimeout(err);
      if (!outage || Date.now() + RETRY_MS >= leaseEndsAtMs) throw err;
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
}
