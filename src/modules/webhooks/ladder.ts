// When a failed delivery is tried again (Events, Delivery 3-4). The first attempt goes out as soon
// as a worker is free; failure n (1-7) schedules attempt n+1 after the n-th delay of the ladder; the
// eighth failure marks the delivery dead. (The description lists an eighth rung, 72 hours, and
// "about four days"; with eight attempts and the eighth failure final, seven waits separate them,
// about 31 hours in all: the count of attempts and the dead-on-eighth rule are the testable rules,
// so they win. See spec/openapi/areas/webhooks.yaml.)

/** Seconds to wait after each failure, in order. */
export const RETRY_DELAYS_SECONDS = [10, 30, 120, 600, 3_600, 21_600, 86_400, 259_200] as const;

/** Attempts a delivery gets before it is dead (Limits: webhook attempts 8). */
export const MAX_ATTEMPTS = 8;

/** Consecutive failures (of any of its deliveries) that disable an endpoint. */
export const DISABLE_AFTER_FAILURES = 20;

/** When attempt `attempts + 1` is due after `attempts` failed attempts, or null when the delivery is dead. */
export function nextAttemptAt(attempts: number, failedAt: Date): Date | null {
  if (attempts >= MAX_ATTEMPTS) return null;
  return new Date(failedAt.getTime() + RETRY_DELAYS_SECONDS[attempts - 1]! * 1000);
}
