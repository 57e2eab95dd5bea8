// The creator dashboard (DASHBOARD_PORT 4007, DASHBOARD_URL): the built single-page app of
// dashboard/ (a client of @subbridge/sdk, nothing else) and the one document it reads at boot,
// /config.json, naming the public addresses it talks to. The server adds nothing the public API
// lacks: every datum on its pages comes through the SDK from the REST API, with a token the
// authorization host issued to the dashboard's first-party OAuth client.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Koa from "koa";
import serve from "koa-static";
import { compressAnswer, compression, IMMUTABLE } from "../../http/compression.ts";
import type { Logger } from "pino";
import { requestContext } from "../../http/request.ts";
import type { ClientIpResolver } from "../../http/client-ip.ts";
import { repositoryFile } from "../../repository-files.ts";
import { DASHBOARD_CLIENT_ID, dashboardRedirectUri } from "../../modules/oauth/first-party.ts";

export interface DashboardDeps {
  release: string;
  logger: Logger;
  dashboardUrl: string;
  baseUrl: string;
  authUrl: string;
  portalUrl: string;
  docsUrl: string;
  mcpUrl: string;
  clientIp?: ClientIpResolver;
  /** The built app (dashboard/dist by default; tests point elsewhere). */
  distDir?: string;
}

export const DEFAULT_DASHBOARD_DIST = fileURLToPath(repositoryFile("dashboard/dist"));

/** The page's policy: its own scripts and styles only; it talks to the REST API and the authorization host alone. */
function contentSecurityPolicy(deps: DashboardDeps): string {
  const origins = [...new Set([deps.baseUrl, deps.authUrl].map((u) => new URL(u).origin))].join(" ");
  return [
    "default-src 'self'",
    "script-src 'self'",
    // React Aria positions popovers and hides text for screen readers with style attributes.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self' ${origins}`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
  ].join("; ");
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Dashboard not built</title></head>
<body><main><h1>The dashboard is not built</h1><p>Run <code>npm run build:dashboard</code> (npm ci does it), then reload.</p></main></body></html>`;

export function createDashboardApp(deps: DashboardDeps): Koa {
  const dist = deps.distDir ?? DEFAULT_DASHBOARD_DIST;
  const indexFile = join(dist, "index.html");
  const csp = contentSecurityPolicy(deps);
  const config = {
    apiUrl: deps.baseUrl,
    authUrl: deps.authUrl,
    portalUrl: deps.portalUrl,
    docsUrl: deps.docsUrl,
    mcpUrl: deps.mcpUrl,
    clientId: DASHBOARD_CLIENT_ID,
    redirectUri: dashboardRedirectUri(deps.dashboardUrl),
    release: deps.release,
  };
  const app = new Koa();
  app.use(
    requestContext({
      logger: deps.logger,
      docsUrl: deps.docsUrl,
      surface: "dashboard",
      publicUrl: deps.dashboardUrl,
      ...(deps.clientIp ? { clientIp: deps.clientIp } : {}),
    }),
  );
  app.use(async (ctx, next) => {
    ctx.set("Content-Security-Policy", csp);
    ctx.set("X-Frame-Options", "DENY");
    // The callback's code never leaves in a Referer.
    ctx.set("Referrer-Policy", "no-referrer");
    await next();
  });
  app.use(async (ctx, next) => {
    if (ctx.path === "/config.json" && (ctx.method === "GET" || ctx.method === "HEAD")) {
      ctx.set("Cache-Control", "no-store");
      ctx.body = config;
      return;
    }
    if (ctx.path === "/up") {
      ctx.set("Cache-Control", "no-store");
      ctx.body = { status: "up", release: deps.release };
      return;
    }
    await next();
  });
  // Hashed asset names never change content: cached for a year, compressed; index.html is never cached.
  app.use(compression());
  app.use(async (ctx, next) => {
    if (ctx.path.startsWith("/assets/")) {
      ctx.set("Cache-Control", IMMUTABLE);
      compressAnswer(ctx);
    }
    await next();
  });
  app.use(serve(dist, { index: false, gzip: true, brotli: false, hidden: false }));
  // Every other page address is the app's own (client-side routes): index.html answers it.
  app.use(async (ctx) => {
    if (ctx.method !== "GET" && ctx.method !== "HEAD") {
      ctx.status = 405;
      ctx.set("Allow", "GET, HEAD");
      return;
    }
    if (ctx.path.startsWith("/assets/")) {
      ctx.status = 404;
      ctx.body = "Not found";
      return;
    }
    ctx.set("Cache-Control", "no-store");
    ctx.type = "text/html; charset=utf-8";
    if (!existsSync(indexFile)) {
      ctx.status = 503;
      ctx.body = NOT_BUILT;
      return;
    }
    ctx.body = readFileSync(indexFile, "utf8");
  });
  return app;
}
