// The twin's HTTP plumbing: Stripe's JSON answers and headers, its pages' headers, a bounded
// request body, the API key of a request as Stripe reads it, and the card expiry a person types.
import type { IncomingMessage, ServerResponse } from "node:http";
import { StripeApiError } from "./errors.ts";
import { API_VERSION, newId } from "./state.ts";

const MAX_BODY = 1 << 20;

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res
    .writeHead(status, { "content-type": "application/json", "request-id": newId("req_", 14), "stripe-version": API_VERSION, ...headers })
    .end(JSON.stringify(body, null, 2));
}

export function sendPage(res: ServerResponse, status: number, html: string, csp: string) {
  res
    .writeHead(status, {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": csp,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
    })
    .end(html);
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new StripeApiError(413, "invalid_request_error", "Request body too large.");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export const masked = (key: string) => `${key.slice(0, 8)}${"*".repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`;

/** The API key of a request: `Authorization: Bearer <key>`, or Basic with the key as user name as curl -u sends it. */
export function apiKey(req: IncomingMessage): string | null {
  const header = req.headers.authorization ?? "";
  const bearer = /^Bearer\s+(\S+)$/i.exec(header);
  if (bearer) return bearer[1]!;
  const basic = /^Basic\s+(\S+)$/i.exec(header);
  return basic ? Buffer.from(basic[1]!, "base64").toString("utf8").split(":")[0]! : null;
}

/** Reads "MM / YY", "MM/YYYY" and the like. */
export function expiry(text: string): { month: number; year: number } | null {
  const match = /^\s*([0-9]{1,2})\s*\/?\s*([0-9]{2}|[0-9]{4})\s*$/.exec(text);
  if (!match) return null;
  const year = Number(match[2]);
  return { month: Number(match[1]), year: year < 100 ? 2000 + year : year };
}
