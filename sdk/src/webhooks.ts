// Verifying (and, for receivers' tests and the server, producing) webhook signatures:
//   SB-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the endpoint secret>
// The key is the endpoint secret exactly as shown ("whsec_..."), as UTF-8 bytes. Web Crypto only,
// so this module runs unchanged in Node 20+, browsers, Deno, Bun and edge runtimes. The RFC 9421
// signature every delivery also carries is verified by ./webhook-message-signature.ts (re-exported
// at the end, so "@subbridge/sdk/webhooks" offers both).
import { headerValue as header, type WebhookHeaders } from "./webhook-headers.js";

import type { WebhookEnvelope, WebhookEvent } from "./webhook-events.js";
import { DEFAULT_TOLERANCE_SECONDS, WebhookVerificationError } from "./webhook-verification-error.js";

// The event types live in webhook-events.ts (generated from the spec); re-exported so that
// @subbridge/sdk/webhooks alone is a complete receiver's kit.
export {
  isWebhookEventType,
  WEBHOOK_EVENT_TYPES,
  type UnknownWebhookEvent,
  type WebhookEnvelope,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventSchemas,
  type WebhookEventType,
} from "./webhook-events.js";
export { createMemoryDeduplicator, type MemoryDeduplicator, type MemoryDeduplicatorOptions } from "./webhook-deduplication.js";

export { DEFAULT_TOLERANCE_SECONDS, WebhookVerificationError, type WebhookVerificationFailure } from "./webhook-verification-error.js";

export type { WebhookHeaders };

export interface VerifyWebhookOptions {
  /** Largest accepted |now - t|, in seconds (default 300, the service's tolerance). */
  toleranceSeconds?: number;
  /** The current time, as Unix seconds or a Date (default: the clock). */
  now?: number | Date;
}

export const SIGNATURE_HEADER = "SB-Signature";

const encoder = new TextEncoder();

function bytesOf(body: string | Uint8Array): Uint8Array {
  return typeof body === "string" ? encoder.encode(body) : body;
}

/** "<t>." followed by the raw body bytes, untouched. */
function signedContent(timestamp: number, body: string | Uint8Array): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(`${timestamp}.`);
  const bytes = bytesOf(body);
  const content = new Uint8Array(prefix.length + bytes.length);
  content.set(prefix);
  content.set(bytes, prefix.length);
  return content;
}

async function hmacSha256Hex(secret: string, content: Uint8Array<ArrayBuffer>): Promise<string> {
  const key = await globalThis.crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await globalThis.crypto.subtle.sign("HMAC", key, content));
  return Array.from(mac, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Compares in time independent of where the strings differ. */
function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

function unixSeconds(now: number | Date | undefined): number {
  if (now instanceof Date) return Math.floor(now.getTime() / 1000);
  return now ?? Math.floor(Date.now() / 1000);
}

/**
 * The SB-Signature header value for a payload: `t=<timestamp>,v1=<hex HMAC-SHA256>`. Byte for byte
 * what the API sends; use it to test a receiver.
 */
export async function signWebhookPayload(rawBody: string | Uint8Array, secret: string, options: { timestamp?: number } = {}): Promise<string> {
  const timestamp = options.timestamp ?? unixSeconds(undefined);
  if (!Number.isInteger(timestamp) || timestamp < 0) throw new TypeError("timestamp must be a whole number of Unix seconds");
  return `t=${timestamp},v1=${await hmacSha256Hex(secret, signedContent(timestamp, rawBody))}`;
}

function parseSignature(value: string): { timestamp: number; signatures: string[] } {
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of value.split(",")) {
    const separator = part.indexOf("=");
    if (separator < 0) continue;
    const key = part.slice(0, separator).trim();
    const entry = part.slice(separator + 1).trim();
    if (key === "t" && /^\d+$/.test(entry)) timestamp = Number(entry);
    else if (key === "v1") signatures.push(entry.toLowerCase());
  }
  if (timestamp === null || signatures.length === 0) {
    throw new WebhookVerificationError("malformed_signature", `${SIGNATURE_HEADER} must read t=<unix seconds>,v1=<hex signature>`);
  }
  return { timestamp, signatures };
}

/**
 * Checks a delivery and returns its event. Pass the raw body exactly as received (before any JSON
 * parsing), the request headers and the endpoint's secret. Throws WebhookVerificationError when
 * the signature is missing or matches no v1 entry, when t is more than `toleranceSeconds` from
 * now, when the body is not an event envelope, or when SB-Event-Id / SB-Event-Name (if present)
 * disagree with the envelope. Resolves to the event typed by its name (WebhookEvent: narrow on
 * `event.type`); `verifyWebhook<MyData>(...)` types it as a plain envelope with `data: MyData` instead.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options?: VerifyWebhookOptions,
): Promise<WebhookEvent>;
// A separate generic overload, so that an annotation (`const event: WebhookEvent = await verifyWebhook(...)`)
// cannot infer Data from the expected type (TS2322): Data comes only from an explicit type argument.
export function verifyWebhook<Data>(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options?: VerifyWebhookOptions,
): Promise<WebhookEvent<Data>>;
export async function verifyWebhook<Data = never>(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent<Data>> {
  if (typeof secret !== "string" || secret === "") throw new TypeError("verifyWebhook needs the endpoint secret (whsec_...)");
  const signatureHeader = header(headers, SIGNATURE_HEADER);
  if (!signatureHeader) throw new WebhookVerificationError("missing_signature", `the request has no ${SIGNATURE_HEADER} header`);
  const { timestamp, signatures } = parseSignature(signatureHeader);

  const expected = await hmacSha256Hex(secret, signedContent(timestamp, rawBody));
  // Every entry is compared, so the time taken does not reveal which one matched.
  const matched = signatures.reduce((found, signature) => constantTimeEqual(signature, expected) || found, false);
  if (!matched) throw new WebhookVerificationError("signature_mismatch", "no v1 signature matches this body and secret");

  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const skew = unixSeconds(options.now) - timestamp;
  if (Math.abs(skew) > tolerance) {
    throw new WebhookVerificationError(
      "timestamp_out_of_tolerance",
      `the signature's timestamp is ${Math.abs(skew)} s ${skew > 0 ? "old" : "in the future"}; at most ${tolerance} s is accepted`,
    );
  }

  let event: WebhookEnvelope<unknown>;
  try {
    event = JSON.parse(typeof rawBody === "string" ? rawBody : new TextDecoder().decode(rawBody));
  } catch {
    throw new WebhookVerificationError("invalid_payload", "the body is not JSON");
  }
  if (typeof event !== "object" || event === null || typeof event.id !== "string" || !event.id.startsWith("evt_") || typeof event.type !== "string") {
    throw new WebhookVerificationError("invalid_payload", "the body is not a webhook event envelope (id evt_..., type)");
  }
  const eventId = header(headers, "SB-Event-Id");
  if (eventId !== null && eventId !== event.id.slice("evt_".length)) {
    throw new WebhookVerificationError("event_id_mismatch", "SB-Event-Id differs from the envelope's id");
  }
  const eventName = header(headers, "SB-Event-Name");
  if (eventName !== null && eventName !== event.type) {
    throw new WebhookVerificationError("event_name_mismatch", "SB-Event-Name differs from the envelope's type");
  }
  // Typed from the spec, not validated against it: an event of a type newer than this SDK passes
  // through as it came (see webhook-events.ts).
  return event as WebhookEvent<Data>;
}

export * from "./webhook-message-signature.js";
