// Compression and validators for the large public answers (the JSON documents, the pages' scripts
// and stylesheets): zstd (on Node 22.15 and later), brotli or gzip as the client accepts, by koa-compress. It is off unless a route
// asks for it (answerDocument or ctx.compress = true), so the API's own answers keep their bytes.
import { createHash } from "node:crypto";
import type Koa from "koa";
import compress from "koa-compress";

/** Hashed file names are never reused for other bytes, so browsers may keep them for a year without asking again. */
export const IMMUTABLE = "public, max-age=31536000, immutable";

/**
 * The middleware each surface mounts ahead of its routes (koa-compress's defaults: brotli quality 4,
 * 1 kB threshold). koa-compress is run only for an answer a route marked (compressAnswer), once the
 * answer is there: it reads the answer's length first thing, which for a JSON body is a second
 * JSON.stringify of it, on every answer it sees.
 */
export function compression(): Koa.Middleware {
  const compressor = compress({ filter: () => false, threshold: 1024 });
  const answered = async () => {};
  return async (ctx, next) => {
    await next();
    if (ctx.compress === true) await compressor(ctx, answered);
  };
}

/** Marks the answer for compression: koa-compress then compresses it whatever its type. */
export function compressAnswer(ctx: Koa.Context): void {
  ctx.compress = true;
}

/** A short hash of some bytes, for ETags and hashed file names. */
export function contentHash(bytes: string | Buffer, length = 16): string {
  return createHash("sha256").update(bytes).digest("base64url").slice(0, length);
}

export interface StaticDocument {
  text: string;
  type: string;
  /** Weak: the same document compressed or not is the same representation for If-None-Match. */
  etag: string;
}

export function staticDocument(text: string, type = "application/json"): StaticDocument {
  return { text, type, etag: `W/"${contentHash(text)}"` };
}

/** Answers a document that never changes while the process runs: compressed, with its ETag, 304 when the client has it. */
export function answerDocument(ctx: Koa.Context, doc: StaticDocument, cacheControl: string): void {
  ctx.set("Cache-Control", cacheControl);
  ctx.set("ETag", doc.etag);
  ctx.type = doc.type;
  ctx.body = doc.text;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  compressAnswer(ctx);
}
