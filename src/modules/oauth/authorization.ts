// The authorization endpoint's rules (RFC 6749 section 4.1, OAuth 2.1, RFC 7636 with S256 only)
// and the code the consent page issues once the creator approves. Nothing is granted here without
// that approval: validateAuthorizationRequest only checks, issueAuthorizationCode is called by the
// page after the creator said yes.
import { createHash } from "node:crypto";
import { randomToken, sha256Hex } from "../../security/crypto.ts";
import { unscoped, type Db } from "../../db/tenant.ts";
import { OAuthError } from "./oauth-error.ts";
import { MCP_SCOPE } from "./metadata.ts";
import { teamGrantsOf } from "../roles/grants.ts";
import { findClient, type OAuthClient } from "./clients.ts";

/** An authorization code is exchanged within this long (RFC 6749 recommends at most 10 minutes). */
export const CODE_LIFETIME_MS = 60_000;
/** base64url of a SHA-256: 43 characters (RFC 7636 section 4.2). */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  scope: string;
  /** Echoed back on every redirect when the client sent one; optional with PKCE (OAuth 2.1 section 4.1.1). */
  state: string | undefined;
  codeChallenge: string;
  codeChallengeMethod: "S256";
}

export type AuthorizationCheck =
  /** Valid: the creator may be asked to approve (sign in first, then the consent page). */
  | { kind: "valid"; request: AuthorizationRequest }
  /**
   * The client or redirect URI cannot be trusted (unknown client, missing or unregistered
   * redirect_uri): the error is shown to the person and never sent to the URI (RFC 6749 4.1.2.1).
   */
  | { kind: "show"; error: string; description: string }
  /** Any other fault goes back to the client at its registered redirect URI, with the state. */
  | { kind: "redirect"; location: string; error: string; description: string };

/** `uri` with `params` added to its query (a registered redirect URI may carry a query of its own). */
export function redirectWithParams(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

type Query = Record<string, string | string[] | undefined>;

/** Checks the parameters of GET /oauth/authorize; says where an error goes. */
export async function validateAuthorizationRequest(db: Db, query: Query): Promise<AuthorizationCheck> {
  const one = (name: string): string | undefined | null => {
    const value = query[name];
    return Array.isArray(value) ? null : value;
  };
  const clientId = one("client_id");
  if (clientId === null) return { kind: "show", error: "invalid_request", description: "client_id is given more than once." };
  if (!clientId) return { kind: "show", error: "invalid_request", description: "client_id is required." };
  const client = await findClient(db, clientId);
  if (!client) return { kind: "show", error: "invalid_request", description: "No client is registered with this client_id." };
  const redirectUri = one("redirect_uri");
  if (!redirectUri) return { kind: "show", error: "invalid_request", description: "redirect_uri is required, exactly once." };
  if (!client.redirectUris.includes(redirectUri)) {
    return { kind: "show", error: "invalid_request", description: "redirect_uri is not one the client registered (exact match)." };
  }

  // An empty state is no state: nothing is echoed back for it.
  const state = one("state") || undefined;
  const refuse = (error: string, description: string): AuthorizationCheck => ({
    kind: "redirect",
    error,
    description,
    location: redirectWithParams(redirectUri, { error, error_description: description, state }),
  });
  for (const name of ["response_type", "scope", "state", "code_challenge", "code_challenge_method"]) {
    if (one(name) === null) return refuse("invalid_request", `${name} is given more than once.`);
  }
  const responseType = one("response_type");
  if (!responseType) return refuse("invalid_request", "response_type is required (code).");
  if (responseType !== "code") return refuse("unsupported_response_type", "The only response_type is code.");
  // RFC 6749 section 3.3: a server may apply its default scope when none is asked for; ours is the only one.
  const scope = one("scope") ?? MCP_SCOPE;
  if (scope !== MCP_SCOPE) return refuse("invalid_scope", `The one scope is ${MCP_SCOPE}.`);
  // No "state is required": OAuth 2.1 lets PKCE (required below) carry the CSRF protection, and
  // an MCP client whose provider has no state() sends none.
  const challenge = one("code_challenge");
  if (!challenge) return refuse("invalid_request", "code_challenge is required (PKCE, S256).");
  const method = one("code_challenge_method");
  if (method !== "S256") return refuse("invalid_request", "code_challenge_method must be S256 (plain is refused).");
  if (!S256_CHALLENGE.test(challenge))
    return refuse("invalid_request", "code_challenge must be the base64url SHA-256 of the verifier (43 characters).");
  return { kind: "valid", request: { client, redirectUri, scope, state, codeChallenge: challenge, codeChallengeMethod: "S256" } };
}

export interface CodeRequest {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  codeChallengeMethod: string;
  scope: string;
  /** The signed-in creator who approved. */
  userId: string;
  /** The team they had selected; the tokens act on it. Null when they belong to no team. */
  teamId: string | null;
  now: Date;
}

/** The error a creator who belongs to no team (or no longer to the token's) gets. */
export function tenantMismatch(error: string, why: string, status = 400): OAuthError {
  return new OAuthError(error, `TENANT_MISMATCH: ${why}`, status);
}

/**
 * Issues a single-use authorization code (lives CODE_LIFETIME_MS) for an approved request; the
 * consent page redirects to redirectWithParams(redirectUri, {code, state}). Throws OAuthError:
 * invalid_request (client, redirect URI, PKCE), invalid_scope, access_denied with
 * "TENANT_MISMATCH: ..." when the creator neither owns nor belongs to the team.
 */
export async function issueAuthorizationCode(from: Db, request: CodeRequest): Promise<string> {
  const db = unscoped(from, "OAuth: the code is issued before any token (and actor) exists");
  const client = await findClient(db, request.clientId);
  if (!client) throw new OAuthError("invalid_request", "No client is registered with this client_id.");
  if (!client.redirectUris.includes(request.redirectUri)) throw new OAuthError("invalid_request", "redirect_uri is not one the client registered.");
  if (request.codeChallengeMethod !== "S256") throw new OAuthError("invalid_request", "code_challenge_method must be S256.");
  if (!S256_CHALLENGE.test(request.codeChallenge)) throw new OAuthError("invalid_request", "code_challenge must be 43 base64url characters.");
  if (request.scope !== MCP_SCOPE) throw new OAuthError("invalid_scope", `The one scope is ${MCP_SCOPE}.`);
  if (!request.teamId || !(await teamGrantsOf(db, request.userId, request.teamId))) {
    throw tenantMismatch("access_denied", "the creator belongs to no team (or not to the one selected).", 403);
  }
  const code = randomToken(43);
  await db("oauth_authorization_codes").insert({
    code_hash: sha256Hex(code),
    client_id: client.clientId,
    user_id: request.userId,
    team_id: request.teamId,
    redirect_uri: request.redirectUri,
    code_challenge: request.codeChallenge,
    scope: MCP_SCOPE,
    expires_at: new Date(request.now.getTime() + CODE_LIFETIME_MS),
    created_at: request.now,
  });
  return code;
}

/** The S256 challenge of a verifier (RFC 7636 section 4.2). */
export function s256(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}
