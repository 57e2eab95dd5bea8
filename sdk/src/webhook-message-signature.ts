// Verifying the second signature every SubBridge delivery carries: an HTTP Message Signature
// (RFC 9421) made with the service's Ed25519 key, whose public key SubBridge publishes at
// {site_url}/.well-known/http-message-signatures-directory. No shared secret is needed: anyone
// holding the directory can check that a request came from SubBridge and was not altered.
//
// A delivery's signature (tag "subbridge-webhook") covers "@method", "@target-uri",
// "content-digest" (RFC 9530: the body's SHA-256), "content-type", "sb-event-id" and
// "sb-event-name", with created, expires (created + 300 s), keyid (the JWK SHA-256 thumbprint of
// the key, RFC 7638) and alg "ed25519". Structured fields are parsed and re-serialised by
// structured-headers (RFC 8941/9651); the cryptography is Web Crypto's, so this module runs in
// Node 20+, browsers, Deno, Bun and edge runtimes alike.
import { isInnerList, parseDictionary, serializeInnerList, serializeItem, type Dictionary, type InnerList } from "structured-headers";
import { headerValue, type WebhookHeaders } from "./webhook-headers.js";
import { DEFAULT_TOLERANCE_SECONDS, WebhookVerificationError, type WebhookVerificationFailure } from "./webhook-verification-error.js";

export const MESSAGE_SIGNATURE_TAG = "subbridge-webhook";
export const SIGNING_KEY_DIRECTORY_PATH = "/.well-known/http-message-signatures-directory";
const DIRECTORY_TYPE = "application/http-message-signatures-directory+json";
/** A delivery's signature must cover all of these, so that it vouches for the whole request. */
const REQUIRED_COMPONENTS = ["@method", "@target-uri", "content-digest", "content-type", "sb-event-id", "sb-event-name"];

/** A JSON Web Key as the directory lists it (Ed25519: kty "OKP", crv "Ed25519", x; kid = thumbprint). */
export interface DirectoryKey {
  kty?: string;
  crv?: string;
  x?: string;
  kid?: string;
}

/** The JWKS served at the directory ({ keys: [{ kty: "OKP", crv: "Ed25519", x, kid }] }). */
export interface SigningKeyDirectory {
  keys: DirectoryKey[];
}

export interface MessageSignatureRequest {
  /** The request method (POST for deliveries). */
  method: string;
  /**
   * The absolute URL the request was sent to: the endpoint URL you registered (behind a proxy,
   * rebuild the public URL; Node's req.url alone is only the path).
   */
  url: string;
  headers: WebhookHeaders;
  /** The raw body exactly as received, before any JSON parsing. */
  body: string | Uint8Array;
}

export interface VerifyMessageSignatureOptions {
  /** The current time, as a Date or Unix seconds (default: the clock). */
  now?: Date | number;
  /** Largest accepted |now - created|, in seconds (default 300). */
  toleranceSeconds?: number;
}

export interface VerifiedMessageSignature {
  /** The signature's label in Signature-Input (select by tag, not by label). */
  label: string;
  /** The signing key's thumbprint, equal to its kid in the directory. */
  keyid: string;
  /** Unix seconds. */
  created: number;
  expires: number | null;
  /** The covered components, in order. */
  components: string[];
}

const encoder = new TextEncoder();
const fail = (reason: WebhookVerificationFailure, message: string) => new WebhookVerificationError(reason, message);

function unixSeconds(now: Date | number | undefined): number {
  if (now instanceof Date) return Math.floor(now.getTime() / 1000);
  return now ?? Math.floor(Date.now() / 1000);
}

function base64url(bytes: ArrayBuffer): string {
  let binary = "";
  for (const byte of new Uint8Array(bytes)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function sameBytes(a: ArrayBuffer, b: ArrayBuffer): boolean {
  const x = new Uint8Array(a);
  const y = new Uint8Array(b);
  if (x.length !== y.length) return false;
  let difference = 0;
  for (let i = 0; i < x.length; i++) difference |= x[i]! ^ y[i]!;
  return difference === 0;
}

function parseField(headers: WebhookHeaders, name: string): Dictionary | null {
  const value = headerValue(headers, name);
  if (value === null) return null;
  try {
    return parseDictionary(value);
  } catch {
    throw fail("malformed_signature", `${name} is not a structured-field dictionary`);
  }
}

/** RFC 7638 thumbprint of an Ed25519 JWK: SHA-256 over {"crv","kty","x"} in that order. */
async function thumbprint(x: string): Promise<string> {
  return base64url(await globalThis.crypto.subtle.digest("SHA-256", encoder.encode(JSON.stringify({ crv: "Ed25519", kty: "OKP", x }))));
}

/** The directory's Ed25519 key whose thumbprint is keyid (computed, so a wrong kid label cannot mislead). */
async function keyFor(directory: SigningKeyDirectory, keyid: string): ReturnType<typeof globalThis.crypto.subtle.importKey> {
  for (const jwk of directory.keys ?? []) {
    if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.x !== "string") continue;
    if ((await thumbprint(jwk.x)) !== keyid) continue;
    return globalThis.crypto.subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: jwk.x }, { name: "Ed25519" }, false, ["verify"]);
  }
  throw fail(
    "unknown_key",
    `no key in the directory has the thumbprint ${keyid}; fetch the directory again (refresh: true) in case the key was rotated`,
  );
}

/** A covered component's value (RFC 9421 section 2): derived ones from the request, fields trimmed. */
function componentValue(name: string, request: MessageSignatureRequest, url: URL): string {
  switch (name) {
    case "@method":
      return request.method.toUpperCase();
    case "@target-uri":
      return url.href;
    case "@authority":
      return url.host;
    case "@scheme":
      return url.protocol.slice(0, -1);
    case "@path":
      return url.pathname || "/";
    case "@query":
      return url.search || "?";
  }
  const value = name.startsWith("@") ? null : headerValue(request.headers, name);
  if (value === null) throw fail("missing_component", `the signature covers ${name}, which the request does not carry`);
  return value.trim();
}

async function checkContentDigest(headers: WebhookHeaders, body: string | Uint8Array): Promise<void> {
  const digests = parseField(headers, "content-digest");
  const bytes = typeof body === "string" ? encoder.encode(body) : body;
  let checked = 0;
  for (const [algorithm, name] of [
    ["sha-256", "SHA-256"],
    ["sha-512", "SHA-512"],
  ] as const) {
    const member = digests?.get(algorithm);
    if (member === undefined) continue;
    if (isInnerList(member) || !(member[0] instanceof ArrayBuffer))
      throw fail("malformed_signature", `Content-Digest ${algorithm} is not a byte sequence`);
    const actual = await globalThis.crypto.subtle.digest(name, bytes as Uint8Array<ArrayBuffer>);
    if (!sameBytes(actual, member[0]))
      throw fail("content_digest_mismatch", `the body's ${algorithm} differs from Content-Digest: the body was altered`);
    checked++;
  }
  if (!checked) throw fail("content_digest_mismatch", "Content-Digest has no sha-256 or sha-512 digest of the body");
}

/**
 * Checks a delivery's RFC 9421 signature against the published directory and returns what it
 * covered. Throws WebhookVerificationError with reason missing_signature (no signature tagged
 * subbridge-webhook), malformed_signature, missing_component (a required component is not covered
 * or not present), unsupported_algorithm, unknown_key (refetch the directory and retry once),
 * signature_mismatch (a covered header, the method or the URL differs from what was signed),
 * timestamp_out_of_tolerance (|now - created| > toleranceSeconds), signature_expired (now is past
 * expires) or content_digest_mismatch (the body differs from what was signed).
 */
export async function verifyWebhookMessageSignature(
  request: MessageSignatureRequest,
  directory: SigningKeyDirectory,
  options: VerifyMessageSignatureOptions = {},
): Promise<VerifiedMessageSignature> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    throw new TypeError("request.url must be the absolute URL the delivery was sent to (the endpoint URL you registered)");
  }
  const inputs = parseField(request.headers, "signature-input");
  const signatures = parseField(request.headers, "signature");
  if (!inputs || !signatures) throw fail("missing_signature", "the request has no Signature-Input and Signature headers");
  const tagged = [...inputs].find(([, member]) => isInnerList(member) && member[1].get("tag") === MESSAGE_SIGNATURE_TAG);
  if (!tagged) throw fail("missing_signature", `no signature is tagged ${MESSAGE_SIGNATURE_TAG}`);
  const [label, input] = tagged as [string, InnerList];
  const signature = signatures.get(label);
  if (!signature || isInnerList(signature) || !(signature[0] instanceof ArrayBuffer))
    throw fail("malformed_signature", `Signature has no byte sequence labelled ${label}`);

  const params = input[1];
  const [keyid, created, expires, alg] = ["keyid", "created", "expires", "alg"].map((name) => params.get(name));
  if (typeof keyid !== "string") throw fail("malformed_signature", "the signature has no keyid");
  if (!Number.isInteger(created)) throw fail("malformed_signature", "the signature has no created time");
  if (expires !== undefined && !Number.isInteger(expires)) throw fail("malformed_signature", "the signature's expires is not a time");
  if (alg !== undefined && alg !== "ed25519") throw fail("unsupported_algorithm", `alg ${String(alg)} is not ed25519`);
  const components = input[0].map(([name, componentParams]) => {
    if (typeof name !== "string" || componentParams.size)
      throw fail("malformed_signature", "a covered component has parameters this verifier does not support");
    return name;
  });
  const uncovered = REQUIRED_COMPONENTS.filter((name) => !components.includes(name));
  if (uncovered.length) throw fail("missing_component", `the signature does not cover ${uncovered.join(", ")}`);

  const key = await keyFor(directory, keyid);
  const base = [
    ...components.map((name) => `${serializeItem([name, new Map()])}: ${componentValue(name, request, url)}`),
    `${serializeItem(["@signature-params", new Map()])}: ${serializeInnerList(input)}`,
  ].join("\n");
  if (!(await globalThis.crypto.subtle.verify({ name: "Ed25519" }, key, signature[0], encoder.encode(base))))
    throw fail("signature_mismatch", "the signature does not match the method, URL or covered headers of this request");

  const now = unixSeconds(options.now);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const skew = now - (created as number);
  if (Math.abs(skew) > tolerance)
    throw fail(
      "timestamp_out_of_tolerance",
      `the signature was created ${Math.abs(skew)} s ${skew > 0 ? "ago" : "in the future"}; at most ${tolerance} s is accepted`,
    );
  if (expires !== undefined && now > (expires as number)) throw fail("signature_expired", `the signature expired ${now - (expires as number)} s ago`);
  await checkContentDigest(request.headers, request.body);
  return { label, keyid, created: created as number, expires: (expires as number | undefined) ?? null, components };
}

export interface FetchSigningKeyDirectoryOptions {
  /** The fetch to use (default: globalThis.fetch). */
  fetch?: (input: string, init?: RequestInit) => Promise<Response>;
  /** Ignore a cached copy (after unknown_key: the key may have been rotated). */
  refresh?: boolean;
}

const DEFAULT_CACHE_SECONDS = 300;
const MAX_CACHE_SECONDS = 86_400;
const cached = new Map<string, { until: number; directory: SigningKeyDirectory }>();

/**
 * GETs {siteUrl}/.well-known/http-message-signatures-directory and keeps it for the answer's
 * Cache-Control max-age (SubBridge sends one hour; 5 minutes when absent, never over a day).
 * Throws WebhookVerificationError("directory_unavailable") when it cannot be read.
 */
export async function fetchSigningKeyDirectory(siteUrl: string, options: FetchSigningKeyDirectoryOptions = {}): Promise<SigningKeyDirectory> {
  const url = new URL(SIGNING_KEY_DIRECTORY_PATH, siteUrl).href;
  const hit = cached.get(url);
  if (hit && !options.refresh && hit.until > Date.now()) return hit.directory;
  const doFetch = options.fetch ?? globalThis.fetch;
  let response: Response;
  try {
    response = await doFetch(url, { headers: { accept: `${DIRECTORY_TYPE}, application/json;q=0.5` } });
  } catch (error) {
    throw fail("directory_unavailable", `${url} could not be fetched: ${(error as Error).message}`);
  }
  if (!response.ok) throw fail("directory_unavailable", `${url} answered ${response.status}`);
  let directory: SigningKeyDirectory;
  try {
    directory = (await response.json()) as SigningKeyDirectory;
  } catch {
    throw fail("directory_unavailable", `${url} did not answer JSON`);
  }
  if (!directory || !Array.isArray(directory.keys)) throw fail("directory_unavailable", `${url} did not answer a key set ({"keys": [...]})`);
  const cacheControl = response.headers.get("cache-control") ?? "";
  const maxAge = /no-store|no-cache/.test(cacheControl) ? 0 : Number(/max-age=(\d+)/.exec(cacheControl)?.[1] ?? DEFAULT_CACHE_SECONDS);
  cached.set(url, { until: Date.now() + Math.min(maxAge, MAX_CACHE_SECONDS) * 1000, directory });
  return directory;
}
