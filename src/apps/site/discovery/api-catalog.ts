// /.well-known/api-catalog (RFC 9727) on {site_url} and {base_url}: a linkset (RFC 9264) with one
// entry per API: the REST API anchored on {base_url}/v1, the MCP server anchored on {mcp_url}.
// RFC 9727 section 4.2 wants the linkset media type with its profile, and a HEAD answered with a
// Link header naming the catalog (rel api-catalog); GET carries the same header.
import type Koa from "koa";
import { discoveryRoute, type DiscoveryDeps } from "../../../http/discovery-document.ts";
import { PROTECTED_RESOURCE_PATH } from "../../mcp/protected-resource-metadata.ts";
import { AI_PLUGIN_PATH, API_CATALOG_PATH, guides, type DiscoveryAddresses } from "./addresses.ts";

export const API_CATALOG_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';

interface Target {
  href: string;
  type?: string;
  title?: string;
}
type LinksetEntry = { anchor: string } & Record<string, string | Target[]>;

export function apiCatalog(urls: DiscoveryAddresses): { linkset: LinksetEntry[] } {
  const docs = guides(urls.docsUrl);
  return {
    linkset: [
      {
        anchor: `${urls.baseUrl}/v1`,
        "service-desc": [
          { href: `${urls.baseUrl}/openapi.json`, type: "application/vnd.oai.openapi+json;version=3.1", title: "OpenAPI 3.1 document" },
        ],
        "service-doc": [
          { href: docs.restApi, type: "text/html", title: "REST API guide" },
          { href: docs.webhooks, type: "text/html", title: "Webhooks guide" },
        ],
        "service-meta": [{ href: `${urls.baseUrl}${AI_PLUGIN_PATH}`, type: "application/json", title: "Plugin manifest" }],
        status: [{ href: `${urls.baseUrl}/up`, type: "application/json" }],
      },
      {
        anchor: urls.mcpUrl,
        "service-doc": [{ href: docs.mcp, type: "text/html", title: "MCP server guide" }],
        "service-meta": [{ href: `${urls.mcpUrl}${PROTECTED_RESOURCE_PATH}`, type: "application/json", title: "OAuth protected-resource metadata" }],
        status: [{ href: `${urls.mcpUrl}/up`, type: "application/json" }],
      },
    ],
  };
}

/** The Link header every answer of the catalog carries; `hostUrl` is the host serving it. */
export const apiCatalogLink = (hostUrl: string) => `<${hostUrl}${API_CATALOG_PATH}>; rel="api-catalog"`;

export function apiCatalogRoute(deps: DiscoveryDeps, urls: DiscoveryAddresses, hostUrl: string): Koa.Middleware {
  const body = JSON.stringify(apiCatalog(urls));
  const link = apiCatalogLink(hostUrl);
  return discoveryRoute(deps, async (ctx) => {
    // Set as a header, not ctx.type: the media type must reach the client exactly, profile included.
    ctx.set({ Link: link, "Content-Type": API_CATALOG_TYPE });
    ctx.body = body;
  });
}
