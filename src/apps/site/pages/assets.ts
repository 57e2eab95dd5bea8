// Files the pages load, all from this host (no CDN): the one stylesheet both sites share and, on
// the reference site, the code blocks' copy buttons and Scalar's standalone bundle from node_modules. Small files are read once at
// start; a large one (Scalar's, about 4 MB) is streamed from disk on each request instead of held in
// every process's memory: its address carries its hash and browsers keep it for a year, so it is
// asked for rarely. Each answer is compressed as the client accepts (../../../http/compression.ts).
import { createReadStream, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Router } from "@koa/router";
import { readRepositoryText, repositoryFile } from "../../../repository-files.ts";
import { compressAnswer, IMMUTABLE } from "../../../http/compression.ts";

export interface Asset {
  file: string;
  type: string;
  /** Its address carries its content's hash: cached for a year rather than an hour. */
  immutable?: boolean;
}

export const SITE_STYLESHEET: Record<string, Asset> = { "site.css": { file: "src/apps/site/assets/site.css", type: "text/css; charset=utf-8" } };

/** The copy buttons the reference site's code blocks get when scripts run: its address and its file. */
export const COPY_CODE_SCRIPT = {
  path: "/assets/copy-code.js",
  asset: { file: "src/apps/site/assets/copy-code.js", type: "text/javascript; charset=utf-8" },
} as const;

/** Files up to this size are kept in memory. */
const KEPT_BYTES = 256 * 1024;

type Served = { type: string; cacheControl: string } & ({ body: string } | { path: string; size: number });

function load(asset: Asset): Served {
  const path = fileURLToPath(repositoryFile(asset.file));
  // Read at start either way: a missing file stops the start, not a later request.
  const { size } = statSync(path);
  const kept = { type: asset.type, cacheControl: asset.immutable ? IMMUTABLE : "public, max-age=3600" };
  return size <= KEPT_BYTES ? { ...kept, body: readRepositoryText(asset.file) } : { ...kept, path, size };
}

export function mountSiteAssets(router: Router, assets: Record<string, Asset>): void {
  const loaded = new Map(Object.entries(assets).map(([name, a]) => [name, load(a)]));
  router.register("/assets/:name", ["GET"], async (ctx, next) => {
    const asset = loaded.get(ctx.params.name!);
    if (!asset) return next(); // the surface's 404 answer
    ctx.type = asset.type;
    ctx.set("Cache-Control", asset.cacheControl);
    ctx.set("X-Content-Type-Options", "nosniff");
    compressAnswer(ctx);
    if ("body" in asset) ctx.body = asset.body;
    else {
      ctx.length = asset.size;
      ctx.body = createReadStream(asset.path);
    }
  });
}
