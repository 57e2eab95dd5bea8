// The files the pages load, all from this host (no CDN): the stylesheet and the WebAuthn browser
// helper (@simplewebauthn/browser's bundle, read from node_modules at start). Cached for an hour, compressed as the client accepts.
import type { Router } from "@koa/router";
import { readRepositoryText } from "../../../repository-files.ts";
import { compressAnswer } from "../../../http/compression.ts";

const ASSETS: Record<string, { file: string; type: string }> = {
  "auth.css": { file: "src/apps/auth/assets/auth.css", type: "text/css; charset=utf-8" },
  "passkeys.js": { file: "src/apps/auth/assets/passkeys.js", type: "text/javascript; charset=utf-8" },
  "copy-token.js": { file: "src/apps/auth/assets/copy-token.js", type: "text/javascript; charset=utf-8" },
  "simplewebauthn-browser.js": { file: "node_modules/@simplewebauthn/browser/dist/bundle/index.umd.min.js", type: "text/javascript; charset=utf-8" },
};

export function mountAssets(router: Router): void {
  const loaded = new Map(Object.entries(ASSETS).map(([name, a]) => [name, { body: readRepositoryText(a.file), type: a.type }]));
  router.register("/assets/:name", ["GET"], async (ctx) => {
    const asset = loaded.get(ctx.params.name!);
    if (!asset) return; // falls through to the 404 answer
    ctx.type = asset.type;
    ctx.set("Cache-Control", "public, max-age=3600");
    ctx.set("X-Content-Type-Options", "nosniff");
    compressAnswer(ctx);
    ctx.body = asset.body;
  });
}
