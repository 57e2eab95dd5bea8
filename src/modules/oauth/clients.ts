// OAuth clients registered dynamically (RFC 7591): public clients only (no secret; PKCE stands in
// for client authentication), each with the exact redirect URIs it may receive codes at.
import { randomToken } from "../../security/crypto.ts";
import { unscoped, type Db } from "../../db/tenant.ts";
import { isOneLine } from "../../one-line.ts";
import { OAuthError } from "./oauth-error.ts";
import { MCP_SCOPE } from "./metadata.ts";

export const CLIENT_GRANT_TYPES = ["authorization_code", "refresh_token"] as const;
/** Private-use schemes of the native MCP clients the description names. */
const NATIVE_SCHEMES = new Set(["cursor:", "vscode:", "vscode-insiders:", "windsurf:"]);
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
const MAX_REDIRECT_URIS = 10;
const MAX_NAME = 200;
const MAX_URI = 2000;

export interface OAuthClient {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  /** The deployment's own dashboard (./first-party.ts): no consent screen, tokens valid on REST. */
  firstParty: boolean;
}

/** Why a redirect URI is refused, or null when it is acceptable. */
export function redirectUriProblem(value: unknown): string | null {
  if (typeof value !== "string" || value === "") return "is not a non-empty string";
  if (value.length > MAX_URI) return `is longer than ${MAX_URI} characters`;
  if (value.includes("#")) return "has a fragment (#), which redirect URIs may not carry";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "is not an absolute URI";
  }
  if (url.protocol === "https:") return url.hostname ? null : "has no host";
  if (url.protocol === "http:") {
    return LOOPBACK_HOSTS.has(url.hostname) ? null : "uses http on a host other than localhost, 127.0.0.1 or [::1] (use https)";
  }
  if (NATIVE_SCHEMES.has(url.protocol)) return null;
  return `uses the scheme ${url.protocol.slice(0, -1)}, which is not https, http on localhost, or cursor, vscode, vscode-insiders, windsurf`;
}

function metadataError(description: string): never {
  throw new OAuthError("invalid_client_metadata", description);
}

/** Checks what a client may ask for besides its name and URIs: only what a public MCP client gets. */
function checkOptionalMetadata(body: Record<string, unknown>): void {
  const method = body.token_endpoint_auth_method;
  if (method !== undefined && method !== "none")
    metadataError(`token_endpoint_auth_method ${String(method)} is refused: clients here are public (none).`);
  const grants = body.grant_types;
  if (grants !== undefined) {
    if (!Array.isArray(grants)) metadataError("grant_types must be an array.");
    const other = grants.filter((g) => !(CLIENT_GRANT_TYPES as readonly unknown[]).includes(g));
    if (other.length) metadataError(`grant_types ${other.map(String).join(", ")} are refused: only authorization_code and refresh_token.`);
  }
  const responses = body.response_types;
  if (responses !== undefined) {
    if (!Array.isArray(responses) || responses.some((r) => r !== "code")) metadataError("response_types may hold only code.");
  }
  const scope = body.scope;
  if (scope !== undefined && scope !== MCP_SCOPE) metadataError(`scope ${String(scope)} is refused: the one scope is ${MCP_SCOPE}.`);
}

/** Registers a client from its RFC 7591 metadata; throws invalid_client_metadata / invalid_redirect_uri naming what was refused. */
export async function registerClient(from: Db, body: Record<string, unknown>, now: Date) {
  const name = body.client_name;
  if (typeof name !== "string" || name.trim() === "") metadataError("client_name is required: a non-empty string shown to the creator.");
  if (name.length > MAX_NAME) metadataError(`client_name is longer than ${MAX_NAME} characters.`);
  // A name is one line (the spec's Name): it names the client on the consent page and its tokens in alerts.
  if (!isOneLine(name)) metadataError("client_name must be one line, without line breaks or control characters.");
  const uris = body.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0)
    throw new OAuthError("invalid_redirect_uri", "redirect_uris is required: a non-empty array of URIs.");
  if (uris.length > MAX_REDIRECT_URIS) throw new OAuthError("invalid_redirect_uri", `redirect_uris holds more than ${MAX_REDIRECT_URIS} URIs.`);
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError("invalid_redirect_uri", `The redirect URI ${JSON.stringify(uri)} ${problem}.`);
  }
  checkOptionalMetadata(body);
  const redirectUris = [...new Set(uris as string[])];
  const clientId = `sbc_${randomToken(32)}`;
  const db = unscoped(from, "OAuth clients belong to no team: registration is anonymous (RFC 7591)");
  await db("oauth_clients").insert({ client_id: clientId, client_name: name, redirect_uris: JSON.stringify(redirectUris), created_at: now });
  return {
    client_id: clientId,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    client_name: name,
    redirect_uris: redirectUris,
    grant_types: [...CLIENT_GRANT_TYPES],
    response_types: ["code"],
    scope: MCP_SCOPE,
    token_endpoint_auth_method: "none",
  };
}

/** The registered client, or null. */
export async function findClient(from: Db, clientId: string): Promise<OAuthClient | null> {
  const db = unscoped(from, "OAuth clients belong to no team");
  const row = (await db("oauth_clients").where({ client_id: clientId }).first()) as
    { client_id: string; client_name: string; redirect_uris: string[]; first_party: boolean } | undefined;
  return row ? { clientId: row.client_id, clientName: row.client_name, redirectUris: row.redirect_uris, firstParty: row.first_party === true } : null;
}
