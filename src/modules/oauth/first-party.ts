// The dashboard's OAuth client (issue 44): one first-party client per deployment, registered by
// every process that serves the authorization host or the dashboard, with the dashboard's callback
// as its one redirect URI (DASHBOARD_URL decides it, so a changed address takes effect at the next
// start). First party means: no consent screen (the creator is signing in to SubBridge itself), and
// its access tokens are accepted on the REST API, acting as the creator (actor kind human).
import { unscoped, type Db } from "../../db/tenant.ts";

export const DASHBOARD_CLIENT_ID = "sbc_dashboard";
export const DASHBOARD_CLIENT_NAME = "SubBridge dashboard";

/** Where the authorization host sends the dashboard's codes. */
export function dashboardRedirectUri(dashboardUrl: string): string {
  return `${dashboardUrl.replace(/\/+$/, "")}/callback`;
}

/** Registers (or updates) the dashboard's client; safe for any number of processes at once. */
export async function registerDashboardClient(from: Db, dashboardUrl: string, now: Date): Promise<void> {
  const db = unscoped(from, "OAuth clients belong to no team: the dashboard's is the deployment's own");
  const row = {
    client_id: DASHBOARD_CLIENT_ID,
    client_name: DASHBOARD_CLIENT_NAME,
    redirect_uris: JSON.stringify([dashboardRedirectUri(dashboardUrl)]),
    first_party: true,
    created_at: now,
  };
  await db("oauth_clients").insert(row).onConflict("client_id").merge(["client_name", "redirect_uris", "first_party"]);
}
