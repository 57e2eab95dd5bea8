// How much of the delivery capacity one team or one endpoint may hold, and how many endpoints a
// team may register: the bounds that keep one noisy tenant from stalling every other team's
// webhooks. The in-flight caps count leased attempts in the database, so they hold across every
// worker process sharing it (./delivery-queue.ts); the operator sets them with
// WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT, WEBHOOK_MAX_IN_FLIGHT_PER_TEAM and WEBHOOK_MAX_ENDPOINTS_PER_TEAM.
// It imports nothing, so the configuration can read its defaults.
export interface WebhookLimits {
  /** Attempts to one endpoint in flight at once, over all workers. */
  inFlightPerEndpoint: number;
  /** Attempts of one team in flight at once, over all workers. */
  inFlightPerTeam: number;
  /** Endpoints a team may register (active or not). */
  endpointsPerTeam: number;
}

/**
 * 32 per team, half of one worker's 64 slots; 16 per endpoint, half a team's, so one slow endpoint
 * leaves the team's others room; 20 endpoints per team.
 */
export const DEFAULT_WEBHOOK_LIMITS: Readonly<WebhookLimits> = { inFlightPerEndpoint: 16, inFlightPerTeam: 32, endpointsPerTeam: 20 };

/** The limits in force: the defaults where the setting names none. */
export function webhookLimits(limits: Partial<WebhookLimits> | undefined): WebhookLimits {
  return { ...DEFAULT_WEBHOOK_LIMITS, ...limits };
}
