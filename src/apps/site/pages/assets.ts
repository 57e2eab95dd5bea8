// Files the pages load, all from this host (no CDN), read once at start: the one stylesheet both
// sites share and, on the reference site, Scalar's standalone bundle from node_modules.
import type { Router } from "@koa/router";
import { readRepositoryText } from "../../../repository-files.ts";

export interface Asset {
  file: string;
  type: string;
}

export const SITE_STYLESHEET: Record<string, Asset> = { "site.css": { file: "src/apps/site/assets/site.css", type: "text/css; charset=utf-8" } };

export function mountSiteAssets(router: Router, assets: Record<string, Asset>): void {
  const loaded = new Map(Object.entries(assets).map(([name, a]) => [name, { body: readRepositoryText(a.file), type: a.type }]));
  router.register("/assets/:name", ["GET"], async (ctx, next) => {
    const asset = loaded.get(ctx.params.name!);
    if (!asset) return next(); // the surface's 404 answer
    ctx.type = asset.type;
    ctx.set("Cache-Control", "public, max-age=3600");
    ctx.set("X-Content-Type-Options", "nosniff");
    ctx.body = asset.body;
  });
}
