// Every path of the client starts with /v1 (they are the OpenAPI document's paths), so the base
// URL must stop before it. The server's start banner prints the REST address with /v1
// (http://localhost:4000/v1) and the served OpenAPI `servers` entry has none: both are accepted,
// so a pasted banner address does not send requests to /v1/v1/... .

/**
 * `baseUrl` without trailing slashes and without one trailing `/v1` path segment. A base path in
 * front of it (a gateway's /subbridge) is kept; the host is never touched (`http://v1` stays).
 */
export function normaliseBaseUrl(baseUrl: string): string {
  const trimmed = baseUrl.trim();
  const origin = /^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i.exec(trimmed)?.[0] ?? "";
  const path = trimmed.slice(origin.length).replace(/\/+$/, "").replace(/\/v1$/, "").replace(/\/+$/, "");
  return origin + path;
}
