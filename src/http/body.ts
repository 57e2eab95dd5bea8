// Reads a write's raw body (its bytes are hashed for idempotency) and parses it as JSON. A body
// that is not readable as UTF-8 JSON is refused (422, fields.body), never repaired: silently
// replacing bytes with U+FFFD would store text the client never sent.
import type Koa from "koa";
import getRawBody from "raw-body";
import { validationFailed } from "../errors.ts";

export const MAX_BODY_BYTES = 1024 * 1024;

export interface RawBody {
  bytes: Buffer;
  /** Parsed JSON; undefined when the body is empty. */
  json: unknown;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

const refuse = (message: string) => validationFailed({ body: [message] }, `The request body could not be read: it ${message}.`);

/** The body's bytes, at most `limit` (a signed body is verified on its bytes before it is decoded). */
export async function readBodyBytes(ctx: Koa.Context, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = ctx.get("content-length");
  try {
    // raw-body: listeners on the request, no async iterator; the limit is checked against the
    // declared length first and against what arrives as it arrives.
    return await getRawBody(ctx.req, { limit, ...(/^\d+$/.test(declared) ? { length: Number(declared) } : {}) });
  } catch (err) {
    if ((err as { type?: string }).type === "entity.too.large") throw refuse(`must be at most ${limit} bytes`);
    throw err; // an aborted request (ECONNABORTED) or a body shorter than declared
  }
}

/** `bytes` as text, refused unless valid UTF-8 (a BOM is dropped). */
export function decodeBody(bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw refuse("is not valid UTF-8");
  }
}

/** The body's bytes and its text: at most MAX_BODY_BYTES, and valid UTF-8 (a BOM is dropped). */
export async function readBodyText(ctx: Koa.Context): Promise<{ bytes: Buffer; text: string }> {
  const bytes = await readBodyBytes(ctx);
  return { bytes, text: decodeBody(bytes) };
}

/** A declared charset other than UTF-8 (JSON is UTF-8: RFC 8259), or null. */
function foreignCharset(ctx: Koa.Context): string | null {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(ctx.get("content-type"))?.[1]?.toLowerCase();
  return charset && charset !== "utf-8" && charset !== "utf8" ? charset : null;
}

/**
 * A write's body, read by readBodyText. For an operation that takes one: UTF-8 JSON, as
 * application/json (or a +json type). For one that takes none (a DELETE): read only for its size
 * and bytes (they are part of the idempotency record), never parsed.
 */
export function parseJsonBody(ctx: Koa.Context, { bytes, text }: { bytes: Buffer; text: string }, takesBody = true): RawBody {
  if (!takesBody || text.trim() === "") return { bytes, json: undefined };
  if (!ctx.is("application/json", "application/*+json")) throw refuse("must be sent with Content-Type: application/json");
  const charset = foreignCharset(ctx);
  if (charset) throw refuse(`must be UTF-8 JSON (charset=${charset} is not accepted)`);
  try {
    return { bytes, json: JSON.parse(text) };
  } catch {
    throw refuse("is not valid JSON");
  }
}
