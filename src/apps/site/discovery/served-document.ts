// A discovery document whose bytes are fixed at start: served exactly as built (a Buffer, so no
// re-encoding), under the discovery rules (public cache for an hour, any origin, 60 a minute per IP).
import type Koa from "koa";
import { discoveryRoute, type DiscoveryDeps } from "../../../http/discovery-document.ts";

export function servedDocument(deps: DiscoveryDeps, body: string | Buffer, contentType: string): Koa.Middleware {
  const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  return discoveryRoute(deps, async (ctx) => {
    // A header, not ctx.type: the media type reaches the client exactly as written here.
    ctx.set("Content-Type", contentType);
    ctx.body = bytes;
  });
}

export const servedJson = (deps: DiscoveryDeps, document: unknown) =>
  servedDocument(deps, JSON.stringify(document), "application/json; charset=utf-8");
