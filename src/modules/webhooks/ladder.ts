// When a failed delivery is tried again (Events, Delivery 3-4). The first attempt goes out as soon
// as a worker is free; then eight retries follow at the eight listed delays (10 s ... 24 h, 72 h):
// failure n (1-8) schedules attempt n+1 after the n-th delay, and the failure of the eighth retry
// (the ninth attempt) marks the delivery dead, about four days (≈103 h) after the event. Issue 34
// read the description's "up to 8 attempts" as eight retries so that both the listed 72-hour rung
// and "about four days" hold. See spec/openapi/areas/webhooks.yaml.

/** Seconds to wait after each failure, in order: one per retry. */
export const RETRY_DELAYS_SECONDS = [10, 30, 120, 600, 3_600, 21_600, 86_400, 259_200] as const;

/** Attempts a delivery gets before it is dead: the first plus one retry per rung of the ladder. */
export const MAX_ATTEMPTS = 1 + RETRY_DELAYS_SECONDS.length;

/** Consecutive failures (of any of its deliveries) that disable an endpoint. */
export const DISABLE_AFTER_FAILURES = 20;

/** When attempt `attempts + 1` is due after `attempts` failed attempts, or null when the delivery is dead. */
export function nextAttemptAt(attempts: number, failedAt: Date): Date | null {
  if (attempts >= MAX_ATTEMPTS) return null;
  return new Date(failedAt.getTime() + RETRY_DELAYS_SECONDS[attempts - 1]! * 1000);
}
