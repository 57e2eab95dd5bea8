// The subscriber portal's public address, which member notices link to. Notices are queued deep in
// domain code (the expiry job, a provider's payment report) that no request's deps reach, so the
// process sets it once at start from PORTAL_URL (main.ts); the default is the configuration's own.
let portalBase = "http://localhost:4005";

/** Sets the portal's public address (config.portal.url) for every notice this process queues. */
export function useNoticePortal(url: string): void {
  portalBase = url.replace(/\/+$/, "");
}

/** The absolute address of a project's portal page, or of `path` under it. */
export function projectPortalUrl(handle: string, path = ""): string {
  return `${portalBase}/${encodeURIComponent(handle)}${path}`;
}
