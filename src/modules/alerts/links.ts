// The public addresses alerts link to (the authorization host's pages, the portal, the API). Alerts are
// raised deep in domain code that has no request, so the process sets them once at start from its
// configuration; until then they are the configuration's defaults.
import { loadConfig } from "../../config.ts";

const defaults = loadConfig({});
const bare = (url: string) => url.replace(/\/+$/, "");
let addresses = { auth: bare(defaults.auth.url), portal: bare(defaults.portal.url), api: bare(defaults.api.url) };

/** Called once by each process that raises alerts (main.ts, the operator CLI), with AUTH_URL, PORTAL_URL and BASE_URL. */
export function setAlertAddresses(next: { auth: string; portal: string; api: string }): void {
  addresses = { auth: bare(next.auth), portal: bare(next.portal), api: bare(next.api) };
}

/** An absolute link to a page of the authorization host (`path` starts with "/"). */
export const authPage = (path: string) => `${addresses.auth}${path}`;

/** An absolute link to a project's portal page. */
export const portalPage = (handle: string) => `${addresses.portal}/${handle}`;

/** An absolute address of the REST API (`path` starts with "/v1/"). */
export const apiAddress = (path: string) => `${addresses.api}${path}`;

const URL_IN_TEXT = /https?:\/\/[^\s<>"]+[^\s<>".,;:!?)]/g;

/**
 * The links of an alert's mail: the addresses in `body` that are pages of ours (as authPage,
 * portalPage and apiAddress make them: our origins, no query or fragment). Any other URL in it
 * (a task's instructions, a name) is shown as text; one of our plain pages a creator wrote is
 * linked, which can lead nowhere but to us.
 */
export function ownLinks(body: string): string[] {
  const ours = Object.values(addresses);
  return [...body.matchAll(URL_IN_TEXT)]
    .map((m) => m[0])
    .filter((url) => !/[?#]/.test(url) && ours.some((origin) => url === origin || url.startsWith(`${origin}/`)));
}
