// The marketing and reference sites in tests: what the site surface needs beyond its own address
// (the other surfaces' addresses, fixed test names, and the repository's connector packages), and
// both surfaces started beside the API.
import { AUTH_URL, MCP_URL, repositoryConnectorRegistry, serveOnFreePort, startApi, TEST_APP_KEY, testLogger, type RunningApi } from "./server.ts";
import { testDatabase, testKv } from "./backends.ts";
import type { MarketingDeps } from "../../src/apps/site/marketing/mount.ts";
import { createDocsApp } from "../../src/apps/docs/docs-app.ts";
import { createSiteApp } from "../../src/apps/site/site-app.ts";

export const BASE_URL = "http://api.test";

export function marketingTestDeps(): Omit<MarketingDeps, "siteUrl" | "docsUrl"> {
  return { baseUrl: BASE_URL, mcpUrl: MCP_URL, authUrl: AUTH_URL, connectors: repositoryConnectorRegistry() };
}

export const SITE_URL = "http://site.test";

/** The docs surface's addresses other than its own and the API's. */
export function docsTestAddresses(): { mcpUrl: string; authUrl: string; siteUrl: string } {
  return { mcpUrl: MCP_URL, authUrl: AUTH_URL, siteUrl: SITE_URL };
}

export interface RunningSites {
  api: RunningApi;
  site: { url: string; close(): Promise<void> };
  docs: { url: string; close(): Promise<void> };
  close(): Promise<void>;
}

/**
 * The API, the reference site and the marketing site in-process, linked to each other: the site's
 * docs_url and base_url are the running docs and API (the docs' site_url stays SITE_URL, as the
 * docs surface starts first).
 */
export async function startSites(): Promise<RunningSites> {
  const api = await startApi();
  const docs = await serveOnFreePort((url) => createDocsApp({ logger: testLogger, docsUrl: url, baseUrl: api.url, ...docsTestAddresses() }));
  const { db } = await testDatabase();
  const kv = await testKv();
  const site = await serveOnFreePort((url) =>
    createSiteApp({
      db,
      kv,
      appKey: TEST_APP_KEY,
      now: () => new Date(),
      release: "3.0.0",
      logger: testLogger,
      siteUrl: url,
      docsUrl: docs.url,
      ...marketingTestDeps(),
      baseUrl: api.url,
    }),
  );
  return { api, site, docs, close: async () => void (await Promise.all([api.close(), docs.close(), site.close()])) };
}
