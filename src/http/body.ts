// Reads a write's raw body (its bytes are hashed for idempotency) and parses it as JSON.
import type Koa from "koa";
import { validationFailed } from "../errors.ts";

export const MAX_BODY_BYTES = 1024 * 1024;

export interface RawBody {
  bytes: Buffer;
  /** Parsed JSON; undefined when the body is empty. */
  json: unknown;
}

export async function readJsonBody(ctx: Koa.Context): Promise<RawBody> {
  const declared = Number(ctx.get("content-length") || 0);
  if (declared > MAX_BODY_BYTES) throw validationFailed({ body: [`must be at most ${MAX_BODY_BYTES} bytes`] });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw validationFailed({ body: [`must be at most ${MAX_BODY_BYTES} bytes`] });
    chunks.push(chunk as Buffer);
  }
  const bytes = Buffer.concat(chunks);
  if (bytes.length === 0 || bytes.toString("utf8").trim() === "") return { bytes, json: undefined };
  if (!ctx.is("application/json", "application/*+json")) throw validationFailed({ body: ["must be sent with Content-Type: application/json"] });
  try {
    return { bytes, json: JSON.parse(bytes.toString("utf8")) };
  } catch {
    throw validationFailed({ body: ["is not valid JSON"] });
  }
}
