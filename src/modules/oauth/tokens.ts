// OAuth access and refresh tokens for MCP clients (live shown; a sandbox's are sbo_test_ and sbr_test_,
// ../tokens/environment.ts). An access token (sbo_live_<id>_<secret>) lives
// one hour and acts as the approving creator on the team they selected, with every ability their
// place there grants. A refresh token (sbr_live_<secret>) is spent by its one renewal, which issues
// the next one of the same family, valid 30 days from that use; a spent one presented again means
// it leaked (or the client is confused), and the whole family - every refresh and access token of
// that connection - is revoked (OAuth 2.1 section 4.3.1). Only hashes are stored.
import { randomUUID } from "node:crypto";
import { randomToken, safeEqual, sha256Hex } from "../../security/crypto.ts";
import { unscoped, type Db, type DomainContext } from "../../db/tenant.ts";
import { OAuthError } from "./oauth-error.ts";
import { MCP_SCOPE } from "./metadata.ts";
import { teamGrantsOf } from "../roles/grants.ts";
import { grantableAbilities } from "../tokens/abilities.ts";
import { credentialRecord, type CredentialRow, type TokenRecord } from "../tokens/tokens.ts";
import { credentialPrefix, fromOtherEnvironment, type Environment } from "../tokens/environment.ts";
import { s256, tenantMismatch } from "./authorization.ts";
import { findClient } from "./clients.ts";
import { oauthAccessTokensTable, oauthCodesTable, oauthRefreshTokensTable } from "./tables.ts";

const ACCESS_SHAPES: Record<Environment, RegExp> = {
  live: /^sbo_live_([1-9][0-9]{0,17})_([A-Za-z0-9]{20,128})$/,
  test: /^sbo_test_([1-9][0-9]{0,17})_([A-Za-z0-9]{20,128})$/,
};
export const ACCESS_TOKEN_LIFETIME_MS = 3_600_000;
export const REFRESH_TOKEN_LIFETIME_MS = 30 * 24 * 3_600_000;
/** RFC 7636 section 4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

const invalidGrant = (description: string) => new OAuthError("invalid_grant", description);

interface Connection {
  clientId: string;
  userId: string;
  teamId: string;
  familyId: string;
}

/** A type (not an interface) so it is a plain JSON record for the token endpoint. */
export type TokenResponse = {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
};

async function issueTokens(db: Db, connection: Connection, now: Date, environment: Environment): Promise<TokenResponse> {
  const base = {
    client_id: connection.clientId,
    user_id: connection.userId,
    team_id: connection.teamId,
    family_id: connection.familyId,
    scope: MCP_SCOPE,
  };
  const secret = randomToken(40);
  const [row] = (await db("oauth_access_tokens")
    .insert({ ...base, secret_hash: sha256Hex(secret), expires_at: new Date(now.getTime() + ACCESS_TOKEN_LIFETIME_MS), created_at: now })
    .returning("id")) as { id: string | number }[];
  const refresh = `${credentialPrefix("sbr", environment)}${randomToken(48)}`;
  await db("oauth_refresh_tokens").insert({
    ...base,
    token_hash: sha256Hex(refresh),
    expires_at: new Date(now.getTime() + REFRESH_TOKEN_LIFETIME_MS),
    created_at: now,
  });
  return {
    access_token: `${credentialPrefix("sbo", environment)}${row!.id}_${secret}`,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_LIFETIME_MS / 1000,
    refresh_token: refresh,
    scope: MCP_SCOPE,
  };
}

/** Ends a connection: its refresh tokens can no longer renew, its access tokens stop working at once. */
async function revokeFamily(db: Db, familyId: string, now: Date): Promise<void> {
  await db("oauth_refresh_tokens").where({ family_id: familyId }).update({ status: "revoked" });
  await db("oauth_access_tokens").where({ family_id: familyId }).whereNull("revoked_at").update({ revoked_at: now });
}

/** The refusal when the creator no longer owns or belongs to the team they approved for, else null. */
async function tenantGone(db: Db, userId: string, teamId: string): Promise<OAuthError | null> {
  if (await teamGrantsOf(db, userId, teamId)) return null;
  return tenantMismatch("invalid_grant", "the creator no longer owns or belongs to the team this connection was approved for.");
}

/**
 * Ends every OAuth connection the creator approved for this team (they were removed from it): a
 * later return to the team must not bring them back. Unused codes are spent so none can be exchanged.
 */
export async function revokeConnectionsOf(ctx: DomainContext, userId: string): Promise<void> {
  await oauthRefreshTokensTable.rows(ctx).where({ user_id: userId }).whereNot({ status: "revoked" }).update({ status: "revoked" });
  await oauthAccessTokensTable.rows(ctx).where({ user_id: userId }).whereNull("revoked_at").update({ revoked_at: ctx.now });
  await oauthCodesTable.rows(ctx).where({ user_id: userId }).whereNull("used_at").update({ used_at: ctx.now });
}

function required(form: Record<string, string>, names: string[]): void {
  for (const name of names) if (!form[name]) throw new OAuthError("invalid_request", `${name} is required.`);
}

/**
 * RFC 6749 section 5.2: an unregistered client_id is invalid_client (401), which tells an MCP client
 * its registration was forgotten (purged) and to register again, rather than a grant refusal.
 */
async function requireClient(db: Db, clientId: string): Promise<void> {
  if (!(await findClient(db, clientId)))
    throw new OAuthError("invalid_client", "No client is registered with this client_id: register again at the registration endpoint.", 401);
}

type Outcome = { tokens: TokenResponse } | { refused: OAuthError };

/** Runs `work` in a transaction that commits even when the answer is a refusal (a revocation must stick). */
async function settle(db: Db, work: (db: Db) => Promise<Outcome>): Promise<TokenResponse> {
  const outcome = await db.transaction((trx) => work(trx));
  if ("refused" in outcome) throw outcome.refused;
  return outcome.tokens;
}

interface CodeRow {
  code_hash: string;
  client_id: string;
  user_id: string;
  team_id: string;
  redirect_uri: string;
  code_challenge: string;
  expires_at: Date;
  used_at: Date | null;
  family_id: string | null;
}

/** grant_type=authorization_code: client_id, code, redirect_uri (as at authorize), code_verifier. */
export async function exchangeAuthorizationCode(
  from: Db,
  form: Record<string, string>,
  now: Date,
  environment: Environment = "live",
): Promise<TokenResponse> {
  required(form, ["client_id", "code", "redirect_uri", "code_verifier"]);
  if (!VERIFIER.test(form.code_verifier!))
    throw new OAuthError("invalid_request", "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~.");
  await requireClient(from, form.client_id!);
  return settle(unscoped(from, "OAuth: a code names its creator and team before any actor exists"), async (db) => {
    const row = (await db("oauth_authorization_codes")
      .where({ code_hash: sha256Hex(form.code!) })
      .first()) as CodeRow | undefined;
    if (!row || row.client_id !== form.client_id)
      return { refused: invalidGrant("The authorization code is unknown, or was issued to another client.") };
    if (row.used_at) {
      // RFC 6749 section 4.1.2: a code used twice revokes what it issued.
      if (row.family_id) await revokeFamily(db, row.family_id, now);
      return { refused: invalidGrant("The authorization code was already used; the tokens it issued are revoked.") };
    }
    if (new Date(row.expires_at).getTime() <= now.getTime()) return { refused: invalidGrant("The authorization code has expired.") };
    if (row.redirect_uri !== form.redirect_uri) return { refused: invalidGrant("redirect_uri differs from the one of the authorization request.") };
    if (!safeEqual(s256(form.code_verifier!), row.code_challenge))
      return { refused: invalidGrant("code_verifier does not match the code_challenge (S256).") };
    const gone = await tenantGone(db, row.user_id, row.team_id);
    if (gone) return { refused: gone };
    const familyId = randomUUID();
    const spent = await db("oauth_authorization_codes")
      .where({ code_hash: row.code_hash })
      .whereNull("used_at")
      .update({ used_at: now, family_id: familyId });
    if (spent !== 1) return { refused: invalidGrant("The authorization code was already used.") };
    return { tokens: await issueTokens(db, { clientId: row.client_id, userId: row.user_id, teamId: row.team_id, familyId }, now, environment) };
  });
}

interface RefreshRow {
  token_hash: string;
  client_id: string;
  user_id: string;
  team_id: string;
  family_id: string;
  status: "active" | "rotated" | "revoked";
  expires_at: Date;
}

/** grant_type=refresh_token: refresh_token, client_id. Rotates: the presented token is spent. */
export async function renewWithRefreshToken(
  from: Db,
  form: Record<string, string>,
  now: Date,
  environment: Environment = "live",
): Promise<TokenResponse> {
  required(form, ["refresh_token", "client_id"]);
  if (fromOtherEnvironment(form.refresh_token!, environment))
    throw invalidGrant(`The refresh token was issued on another environment; this server is ${environment}.`);
  if (form.scope !== undefined && form.scope !== MCP_SCOPE) throw new OAuthError("invalid_scope", `The one scope is ${MCP_SCOPE}.`);
  await requireClient(from, form.client_id!);
  return settle(unscoped(from, "OAuth: a refresh token names its creator and team before any actor exists"), async (db) => {
    const row = (await db("oauth_refresh_tokens")
      .where({ token_hash: sha256Hex(form.refresh_token!) })
      .first()) as RefreshRow | undefined;
    if (!row || row.client_id !== form.client_id) return { refused: invalidGrant("The refresh token is unknown, or was issued to another client.") };
    if (row.status === "revoked") return { refused: invalidGrant("The refresh token was revoked.") };
    if (row.status === "rotated") {
      await revokeFamily(db, row.family_id, now);
      return { refused: invalidGrant("The refresh token was already used (rotated); the connection is revoked: authorize again.") };
    }
    if (new Date(row.expires_at).getTime() <= now.getTime()) return { refused: invalidGrant("The refresh token has expired (30 days without use).") };
    const gone = await tenantGone(db, row.user_id, row.team_id);
    if (gone) {
      // A refusal that commits: the connection ends for good, it does not wait for the creator's return.
      await revokeFamily(db, row.family_id, now);
      return { refused: gone };
    }
    const spent = await db("oauth_refresh_tokens")
      .where({ token_hash: row.token_hash, status: "active" })
      .update({ status: "rotated", used_at: now });
    if (spent !== 1) {
      await revokeFamily(db, row.family_id, now);
      return { refused: invalidGrant("The refresh token was already used (rotated); the connection is revoked: authorize again.") };
    }
    return {
      tokens: await issueTokens(db, { clientId: row.client_id, userId: row.user_id, teamId: row.team_id, familyId: row.family_id }, now, environment),
    };
  });
}

/** The id and secret of a bearer shaped like an OAuth access token of `environment`, or null. */
export function parseOAuthBearer(bearer: string, environment: Environment = "live"): { id: string; secret: string } | null {
  const match = ACCESS_SHAPES[environment].exec(bearer);
  return match ? { id: match[1]!, secret: match[2]! } : null;
}

/**
 * The live access token with this id as a token record (what the shared verification needs): every
 * grantable ability, narrowed by what the creator's place on the team grants when verified; no
 * project allow-list; whether its client is the deployment's dashboard (first party); null when
 * unknown or revoked (the expiry is checked by the verification).
 */
export async function lookupOAuthAccessToken(from: Db, id: string): Promise<(TokenRecord & { firstParty: boolean }) | null> {
  const db = unscoped(from, "authentication: a bearer names its token before any team is known");
  const row = (await db("oauth_access_tokens as t")
    .join("oauth_clients as c", "c.client_id", "t.client_id")
    .where("t.id", id)
    .whereNull("t.revoked_at")
    .first("t.id", "t.user_id", "t.team_id", "t.secret_hash", "t.expires_at", "c.first_party")) as
    (CredentialRow & { first_party: boolean }) | undefined;
  return row ? { ...(await credentialRecord(db, row, [...grantableAbilities], null)), firstParty: row.first_party === true } : null;
}
