// The marketing site ({site_url}): the marketing pages and their Markdown twins (./marketing), the
// discovery documents (./discovery), the signing-key directory that verifies every webhook
// delivery's HTTP Message Signature, and /up, on one router.
import Koa from "koa";
import { Router } from "@koa/router";
import type { Logger } from "pino";
import type { Kv } from "../../kv/kv.ts";
import type { Db } from "../../db/tenant.ts";
import { requestContext } from "../../http/request.ts";
import type { ClientIpResolver } from "../../http/client-ip.ts";
import { discoveryRoute } from "../../http/discovery-document.ts";
import { routeFallback } from "../../http/route-fallback.ts";
import { compression } from "../../http/compression.ts";
import { SIGNATURE_DIRECTORY_PATH, signatureDirectory } from "./signature-directory.ts";
import { mountSiteDiscovery } from "./discovery/routes.ts";
import { mountMarketingPages, type MarketingDeps } from "./marketing/mount.ts";

export interface SiteAppDeps extends MarketingDeps {
  db: Db;
  /** Discovery documents' per-IP limit (60 a minute) is counted here. */
  kv: Kv;
  /** Opens the signing key (sealed with APP_KEY in the database). */
  appKey: Buffer;
  now: () => Date;
  release: string;
  logger: Logger;
  /** This surface's public address, and the reference every error's docs_url points into. */
  siteUrl: string;
  docsUrl: string;
  /** The other surfaces' public addresses, which the discovery documents point at. */
  baseUrl: string;
  mcpUrl: string;
  authUrl: string;
  clientIp?: ClientIpResolver;
}

export function createSiteApp(deps: SiteAppDeps): Koa {
  const router = new Router();
  // GET routes answer HEAD too (the router adds it); Koa sends HEAD's headers without the body.
  router.register(SIGNATURE_DIRECTORY_PATH, ["GET"], discoveryRoute(deps, signatureDirectory(deps)));
  mountSiteDiscovery(router, deps);
  router.register("/up", ["GET"], async (ctx) => {
    ctx.set("Cache-Control", "no-store");
    ctx.body = { status: "up", release: deps.release };
  });
  mountMarketingPages(router, deps, deps);

  const app = new Koa();
  app.use(
    requestContext({
      logger: deps.logger,
      docsUrl: deps.docsUrl,
      surface: "site",
      publicUrl: deps.siteUrl,
      ...(deps.clientIp ? { clientIp: deps.clientIp } : {}),
    }),
  );
  app.use(compression());
  app.use(router.routes());
  app.use(routeFallback(router, `The webhook signing keys are at ${deps.siteUrl}${SIGNATURE_DIRECTORY_PATH}.`));
  return app;
}
