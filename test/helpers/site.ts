// What the site surface needs beyond its own address to build the marketing pages: the other
// surfaces' addresses (fixed test names) and the repository's connector packages.
import { AUTH_URL, repositoryConnectorRegistry } from "./server.ts";
import type { MarketingDeps } from "../../src/site/marketing/mount.ts";

export const BASE_URL = "http://api.test";
export const MCP_URL = "http://mcp.test";

export function marketingTestDeps(): Omit<MarketingDeps, "siteUrl" | "docsUrl"> {
  return { baseUrl: BASE_URL, mcpUrl: MCP_URL, authUrl: AUTH_URL, connectors: repositoryConnectorRegistry() };
}

export const SITE_URL = "http://site.test";

/** The docs surface's addresses other than its own and the API's. */
export function docsTestAddresses(): { mcpUrl: string; authUrl: string; siteUrl: string } {
  return { mcpUrl: MCP_URL, authUrl: AUTH_URL, siteUrl: SITE_URL };
}
