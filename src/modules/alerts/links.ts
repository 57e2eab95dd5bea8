// The public addresses alerts link to (the authorization host's pages, the portal). Alerts are
// raised deep in domain code that has no request, so the process sets them once at start from its
// configuration; until then they are the configuration's defaults.
import { loadConfig } from "../../config.ts";

const defaults = loadConfig({});
let addresses = { auth: defaults.auth.url, portal: defaults.portal.url };

/** Called once by the process that raises alerts (main.ts), with AUTH_URL and PORTAL_URL. */
export function setAlertAddresses(next: { auth: string; portal: string }): void {
  addresses = { auth: next.auth.replace(/\/+$/, ""), portal: next.portal.replace(/\/+$/, "") };
}

/** An absolute link to a page of the authorization host (`path` starts with "/"). */
export const authPage = (path: string) => `${addresses.auth}${path}`;

/** An absolute link to a project's portal page. */
export const portalPage = (handle: string) => `${addresses.portal}/${handle}`;
