// Admission, the first stage of the pipeline for REST and MCP alike: `Authorization: Bearer <token>`
// resolved to a principal, and the request counted against the credential's budget. On the common
// path (a resolution in the credential cache) both take one KV round trip and no database query.
import type { Knex } from "knex";
import { ApiError } from "../errors.ts";
import { sha256Hex } from "../security/crypto.ts";
import type { Kv } from "../kv/kv.ts";
import { expired, lookupToken, parseBearer, verifyTokenHash, type ResolvedToken } from "../modules/tokens/tokens.ts";
import { lookupOAuthAccessToken, parseOAuthBearer } from "../modules/oauth/tokens.ts";
import { credentialPrefix, fromOtherEnvironment, type Environment } from "../modules/tokens/environment.ts";
import { admitCached, CREDENTIAL_TTL_MS, decodeEntry, refreshCredential, rememberCredential } from "./credential-cache.ts";
import type { Principal } from "./context.ts";
import { budgetCounters, consumeBudget, rateLimited, rateStateOf, type RateState, type Window } from "./rate-limit.ts";

function refuse(message: string, remediation?: string): never {
  throw new ApiError("AUTHENTICATION_REQUIRED", message, remediation ? { remediation } : {});
}

/** The bearer value of an Authorization header, or null. */
export function bearerValue(authorization: string | undefined): string | null {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? "");
  return match ? match[1]! : null;
}

export interface Admission {
  principal: Principal;
  /** The budget after this request (for the X-RateLimit-* headers). */
  rate: RateState;
}

export function principalOf(token: ResolvedToken, credentialKind: Principal["credentialKind"] = "personal_access_token"): Principal {
  return {
    credentialKind,
    credentialId: token.tokenId,
    userId: token.userId,
    teamId: token.teamId,
    abilities: token.abilities,
    projectAbilities: token.projectAbilities,
    projectIds: token.projectIds,
  };
}

/**
 * The credential behind `authorization`, with one request counted against `budget` under
 * `<budgetName>:<kind>:<id>`. Throws 401 AUTHENTICATION_REQUIRED (the transport adds its
 * challenge) or 429 RATE_LIMITED (with Retry-After and the rate headers). Only a request whose
 * secret is right is counted.
 */
export async function admitBearer(
  db: Knex,
  kv: Kv,
  authorization: string | undefined,
  budget: readonly Window[],
  budgetName: string,
  now: Date,
  environment: Environment = "live",
): Promise<Admission> {
  if (!authorization) refuse("No bearer token was sent.");
  const bearer = bearerValue(authorization);
  if (!bearer) refuse("The Authorization header must have the form: Bearer <token>.");
  const accepted = credentialPrefix("sbt", environment);
  if (fromOtherEnvironment(bearer, environment)) {
    refuse(
      `This token was minted for another environment; this server accepts only ${accepted} tokens.`,
      `Use a token minted on this environment (it begins with ${accepted}).`,
    );
  }
  if (bearer.startsWith("sbo_")) return admitOAuth(db, kv, bearer, budget, budgetName, now, environment);
  const parsed = parseBearer(bearer, environment);
  if (!parsed) refuse("The token is malformed, unknown, deleted or expired.");
  const subject = `${budgetName}:personal_access_token:${parsed.id}`;
  const counters = budgetCounters(subject, budget, now.getTime());
  const secretHash = sha256Hex(parsed.secret);
  const cached = await admitCached(kv, parsed.id, secretHash, counters);
  return admitToken(db, kv, parsed.id, secretHash, cached, subject, counters, budget, now);
}

/** The rest of admitBearer once the KV has answered: the resolution, its checks and the budget. */
async function admitToken(
  db: Knex,
  kv: Kv,
  tokenId: string,
  secretHash: string,
  cached: Awaited<ReturnType<typeof admitCached>>,
  subject: string,
  counters: ReturnType<typeof budgetCounters>,
  budget: readonly Window[],
  now: Date,
): Promise<Admission> {
  let token: ResolvedToken | null = null;
  let rate: RateState;
  if (cached.state === "hit") {
    const entry = decodeEntry<ResolvedToken | null>(cached.entry);
    if (now.getTime() - entry.resolvedAtMs >= CREDENTIAL_TTL_MS) {
      const record = await lookupToken(db, tokenId, now);
      if (record) await refreshCredential(kv, cached.entry, record, now);
      token = record && verifyTokenHash(record, secretHash, now);
    } else {
      // The resolution is derived once per entry; the expiry is still checked on every request.
      if (entry.derived === undefined) entry.derived = verifyTokenHash(entry.record, secretHash, now);
      token = entry.derived && !expired(entry.record, now) ? entry.derived : null;
    }
    rate = rateStateOf(counters, cached.counts, now.getTime());
  } else {
    if (cached.state === "miss" || cached.state === "changed" || cached.state === "unreachable") {
      const record = await lookupToken(db, tokenId, now);
      if (record && cached.state === "miss") await rememberCredential(kv, record, now);
      token = record && verifyTokenHash(record, secretHash, now);
    }
    if (!token) refuse("The token is malformed, unknown, deleted or expired.");
    rate = await consumeBudget(kv, subject, budget, now.getTime());
  }
  if (!token) refuse("The token is malformed, unknown, deleted or expired.");
  if (rate.retryAfter !== null) throw rateLimited(rate);
  return { principal: principalOf(token), rate };
}

/**
 * An OAuth access token: an MCP client's on MCP only, the dashboard's (first party) on REST too. Read from the database on every request, not kept in the
 * credential cache: a revoked connection (refresh-token reuse) or a creator leaving the team takes
 * effect on the next call without the cache's tombstones knowing about OAuth tokens. One indexed
 * lookup and the creator's grants per MCP HTTP request.
 */
async function admitOAuth(
  db: Knex,
  kv: Kv,
  bearer: string,
  budget: readonly Window[],
  budgetName: string,
  now: Date,
  environment: Environment,
): Promise<Admission> {
  const parsed = parseOAuthBearer(bearer, environment);
  const record = parsed && (await lookupOAuthAccessToken(db, parsed.id));
  // Only the dashboard's tokens (first party) work beyond MCP: an MCP client's stay on MCP.
  if (budgetName !== "mcp" && record && !record.firstParty) {
    refuse(
      `OAuth access tokens of MCP clients are for the MCP server only; the REST API takes personal access tokens (${credentialPrefix("sbt", environment)}).`,
      "Call the MCP server with this token, or use a personal access token here.",
    );
  }
  const token = parsed && record && verifyTokenHash(record, sha256Hex(parsed.secret), now);
  if (!token) refuse("The OAuth access token is malformed, unknown, revoked or expired.", "Renew it with the refresh token at the token endpoint.");
  const rate = await consumeBudget(kv, `${budgetName}:oauth_access_token:${token.tokenId}`, budget, now.getTime());
  if (rate.retryAfter !== null) throw rateLimited(rate);
  return { principal: { ...principalOf(token, "oauth_access_token"), ...(record.firstParty ? { human: true } : {}) }, rate };
}
