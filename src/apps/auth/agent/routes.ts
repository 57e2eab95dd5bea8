// Agent registration without a browser (service description, "Agent registration"): POST
// /agent/identity, POST /agent/identity/claim, and the claim grant of the token endpoint. The
// rules live in src/modules/agent-registrations; this file reads requests, applies the limits and
// answers refusals as `{error, error_description}`.
//
// POST {auth_url}/agent/identity  (JSON, no credential)
//   {"type":"service_auth","login_hint":"ada@example.com","client_name":"Release bot","scope":"project:view project:view-any"}
//   (legacy: {"type":"identity_assertion","assertion_type":"verified_email","assertion":"ada@example.com",...};
//    scope omitted = every read-only mintable ability: actions view-any, view, read)
// 200 {"registration_id":"<uuid>","registration_type":"service_auth",
//      "claim_url":"{auth_url}/agent/claim?registration_id=<uuid>",
//      "claim_token":"sbc_<40 characters>"            (shown once; 30 minutes),
//      "claim_token_expires":"2026-11-25T10:30:00.000Z",
//      "post_claim_scopes":["project:view","project:view-any"],
//      "claim":{"user_code":"042917","verification_uri":"{auth_url}/agent/claim","expires_in":600,"interval":5}}
// 400 anonymous_not_enabled | unsupported_assertion_type | invalid_request | invalid_scope;
// 429 too_many_requests + Retry-After: 10 registrations an hour per client address and per named
//     email, and 60 requests a minute per address to the two /agent/identity endpoints.
//
// POST {auth_url}/agent/identity/claim  (JSON) {"claim_token":"sbc_...","email":"ada@example.com"}
// 200 {"registration_id":"<uuid>","claim_attempt":{user_code, verification_uri, expires_in, interval},
//      "claim":{the same}}   (a fresh code; the previous one stops working)
// 400 invalid_claim_token | email_mismatch | claimed_or_in_flight | claim_expired | invalid_request
//
// POST {auth_url}/oauth/token  (form) grant_type=urn:example:agent-auth:grant-type:claim&claim_token=sbc_...
// 200 (once) {"access_token":"sbt_live_...","token_type":"Bearer","scope":"project:view project:view-any","registration_id":"<uuid>"}
// 400 authorization_pending | slow_down | expired_token | invalid_claim_token | invalid_request
import type { Router } from "@koa/router";
import type Koa from "koa";
import { consumeBudget, rateLimited, type RateState, type Window } from "../../../pipeline/rate-limit.ts";
import { type RequestState, clientNetworkOf } from "../../../http/request.ts";
import { collectAgentToken } from "../../../modules/agent-registrations/collection.ts";
import {
  AgentRegistrationError,
  createAgentRegistration,
  parseRegistrationRequest,
  POLL_INTERVAL_SECONDS,
  renewUserCode,
  type ClaimAttempt,
} from "../../../modules/agent-registrations/registrations.ts";
import type { AuthDeps } from "../deps.ts";
import { CLAIM_GRANT_TYPE } from "../../../modules/oauth/metadata.ts";
import { OAuthError } from "../../../modules/oauth/oauth-error.ts";
import { readJsonObject } from "../requests.ts";
import type { Grant } from "../token-endpoint.ts";

/** Limits: 60 requests a minute per address to the registration endpoints (every request counts). */
export const AGENT_ENDPOINT_BUDGET: readonly Window[] = [{ name: "agent-endpoint-minute", limit: 60, windowMs: 60_000 }];
/** Limits: 10 registrations an hour per address, and 10 per named creator email. */
export const AGENT_REGISTRATION_BUDGET: readonly Window[] = [{ name: "agent-registration-hour", limit: 10, windowMs: 3_600_000 }];

/** The claim page (built with the creator's pages): it asks for the user code. */
export const verificationUri = (authUrl: string) => `${authUrl}/agent/claim`;

function asOAuth(err: unknown): unknown {
  return err instanceof AgentRegistrationError ? new OAuthError(err.code, err.message) : err;
}

async function refused<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw asOAuth(err);
  }
}

function throwIfSpent(...states: RateState[]): void {
  const spent = states.filter((s) => s.retryAfter !== null);
  if (!spent.length) return;
  // The later refill is what the client must wait for.
  throw rateLimited(spent.reduce((a, b) => (b.retryAfter! > a.retryAfter! ? b : a)));
}

const stringField = (body: Record<string, unknown>, name: string): string => {
  const value = body[name];
  if (typeof value !== "string" || value === "") throw new OAuthError("invalid_request", `${name} is required.`);
  return value;
};

function attemptBlock(deps: AuthDeps, attempt: ClaimAttempt, now: Date) {
  return {
    user_code: attempt.userCode,
    verification_uri: verificationUri(deps.authUrl),
    expires_in: Math.max(0, Math.round((attempt.expiresAt.getTime() - now.getTime()) / 1000)),
    interval: POLL_INTERVAL_SECONDS,
  };
}

export function mountAgentRoutes(router: Router, deps: AuthDeps): void {
  const perAddress: Koa.Middleware = async (ctx, next) => {
    const ip = clientNetworkOf(ctx);
    throwIfSpent(await consumeBudget(deps.kv, `agent-endpoint-ip:${ip}`, AGENT_ENDPOINT_BUDGET, deps.now().getTime()));
    ctx.set("Cache-Control", "no-store");
    await next();
  };

  router.register(
    "/agent/identity",
    ["POST"],
    [
      perAddress,
      async (ctx) => {
        const request = await refused(async () => parseRegistrationRequest(await readJsonObject(ctx)));
        const now = deps.now();
        // Both are counted before either is checked, so a client cannot skip one by failing the other.
        const byAddress = await consumeBudget(deps.kv, `agent-registration-ip:${clientNetworkOf(ctx)}`, AGENT_REGISTRATION_BUDGET, now.getTime());
        const byEmail = await consumeBudget(deps.kv, `agent-registration-email:${request.email}`, AGENT_REGISTRATION_BUDGET, now.getTime());
        throwIfSpent(byAddress, byEmail);
        // Whether the email has an account is neither checked nor revealed here.
        const created = await createAgentRegistration(deps.db, request, now);
        ctx.body = {
          registration_id: created.id,
          registration_type: created.type,
          claim_url: `${verificationUri(deps.authUrl)}?registration_id=${created.id}`,
          claim_token: created.claimToken,
          claim_token_expires: created.claimExpiresAt.toISOString(),
          post_claim_scopes: created.abilities,
          claim: attemptBlock(deps, created.attempt, now),
        };
      },
    ],
  );

  router.register(
    "/agent/identity/claim",
    ["POST"],
    [
      perAddress,
      async (ctx) => {
        const body = await readJsonObject(ctx);
        const input = { claimToken: stringField(body, "claim_token"), email: stringField(body, "email"), now: deps.now() };
        const renewed = await refused(() => renewUserCode(deps.db, input));
        const attempt = attemptBlock(deps, renewed, input.now);
        ctx.body = { registration_id: renewed.registrationId, claim_attempt: attempt, claim: attempt };
      },
    ],
  );
}

const claimGrant: Grant = async (form, deps, ctx) => {
  const claimToken = form.claim_token;
  if (!claimToken) throw new OAuthError("invalid_request", "claim_token is required.");
  const requestId = (ctx.state as RequestState).requestId;
  const collected = await refused(() =>
    collectAgentToken(deps.db, { claimToken, now: deps.now(), requestId, environment: deps.environment ?? "live" }),
  );
  return {
    access_token: collected.accessToken,
    token_type: "Bearer",
    scope: collected.abilities.join(" "),
    registration_id: collected.registrationId,
  };
};

export const agentGrants: Readonly<Record<string, Grant>> = { [CLAIM_GRANT_TYPE]: claimGrant };
