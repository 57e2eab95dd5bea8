// The second signature every delivery carries: an HTTP Message Signature (RFC 9421) made with the
// service's Ed25519 key, verifiable by anyone from the public key the site publishes at
// /.well-known/http-message-signatures-directory, no shared secret needed. The body is covered
// through Content-Digest (RFC 9530, sha-256). Structured fields are serialised by structured-headers
// (RFC 8941/9651), so the Signature-Input text and the "@signature-params" line are the same bytes.
//
// What is signed (spec/openapi/areas/webhooks.yaml, decisions, says the same to receivers):
//   components  "@method" "@target-uri" "content-digest" "content-type" "sb-event-id" "sb-event-name"
//   parameters  created, expires (created + 300 s), keyid (the key's JWK thumbprint), alg "ed25519",
//               tag "subbridge-webhook"
//   label       "subbridge" (receivers should select the signature by its tag, not its label)
// SB-Signature is not covered: it is per endpoint and already binds the body; the two schemes stay
// independent, so either can be verified alone.
import { createHash, sign } from "node:crypto";
import { serializeDictionary, serializeInnerList, serializeItem, type BareItem, type Item, type Parameters } from "structured-headers";
import type { WebhookSigningKey } from "./signing-keys.ts";

export const MESSAGE_SIGNATURE_LABEL = "subbridge";
export const MESSAGE_SIGNATURE_TAG = "subbridge-webhook";
/** How long a delivery's signature is valid after it is made (the SB-Signature tolerance too). */
export const MESSAGE_SIGNATURE_LIFETIME_SECONDS = 300;
export const COVERED_COMPONENTS = ["@method", "@target-uri", "content-digest", "content-type", "sb-event-id", "sb-event-name"] as const;

/** One covered component: its name, its parameters (e.g. req), and its value in the signature base. */
export interface CoveredComponent {
  name: string;
  params?: Parameters;
  value: string;
}

/** RFC 9530 Content-Digest of the exact body bytes: sha-256=:<base64>: */
export function contentDigest(body: string | Buffer): string {
  const digest = createHash("sha256").update(body).digest();
  return serializeDictionary(new Map([["sha-256", [digest, new Map()] as Item]]));
}

export interface SignatureTimes {
  created: Date;
  expires: Date;
  tag: string;
}

/**
 * Signs `components` (the RFC 9421 section 2.5 signature base) with `key` and returns the
 * Signature-Input and Signature fields under `label`. Parameters, in order: created, expires,
 * keyid, alg "ed25519", tag.
 */
export function signComponents(
  key: WebhookSigningKey,
  label: string,
  components: CoveredComponent[],
  { created, expires, tag }: SignatureTimes,
): { "signature-input": string; signature: string } {
  const items: Item[] = components.map((c) => [c.name, c.params ?? new Map()]);
  const signatureParams: Parameters = new Map<string, BareItem>([
    ["created", Math.floor(created.getTime() / 1000)],
    ["expires", Math.floor(expires.getTime() / 1000)],
    ["keyid", key.kid],
    ["alg", "ed25519"],
    ["tag", tag],
  ]);
  const input: [Item[], Parameters] = [items, signatureParams];
  const base = [
    ...components.map((c, i) => `${serializeItem(items[i]!)}: ${c.value}`),
    `${serializeItem(["@signature-params", new Map()])}: ${serializeInnerList(input)}`,
  ].join("\n");
  const signature = sign(null, Buffer.from(base, "utf8"), key.privateKey);
  return {
    "signature-input": serializeDictionary(new Map([[label, input]])),
    signature: serializeDictionary(new Map([[label, [signature, new Map()] as Item]])),
  };
}

export interface SignableRequest {
  method: string;
  url: URL;
  /** The raw body, exactly as sent. */
  body: string;
  /** The request's other headers (lower-case names); must hold content-type, sb-event-id, sb-event-name. */
  headers: Record<string, string>;
  at: Date;
}

/**
 * The headers to add to a delivery: content-digest, signature-input and signature (lower-case).
 * Throws when a covered header is missing from `request.headers` (a bug in the caller).
 */
export function messageSignatureHeaders(key: WebhookSigningKey, request: SignableRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
  headers["content-digest"] = contentDigest(request.body);
  const components = COVERED_COMPONENTS.map((name): CoveredComponent => {
    if (name === "@method") return { name, value: request.method.toUpperCase() };
    if (name === "@target-uri") return { name, value: request.url.href };
    const value = headers[name];
    if (value === undefined) throw new Error(`messageSignatureHeaders: the request has no ${name} header to cover`);
    // RFC 9421 section 2.1: the field value with leading and trailing whitespace removed.
    return { name, value: value.trim() };
  });
  const fields = signComponents(key, MESSAGE_SIGNATURE_LABEL, components, {
    created: request.at,
    expires: new Date(request.at.getTime() + MESSAGE_SIGNATURE_LIFETIME_SECONDS * 1000),
    tag: MESSAGE_SIGNATURE_TAG,
  });
  return { "content-digest": headers["content-digest"], ...fields };
}
