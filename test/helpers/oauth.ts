// The OAuth 2.1 flow as an MCP client runs it, for the auth and MCP tests: register a client,
// have a code issued as the consent page will (issueAuthorizationCode), exchange and refresh it
// at the token endpoint.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { testDatabase } from "./backends.ts";
import { issueAuthorizationCode, s256 } from "../../src/modules/oauth/authorization.ts";

export const REDIRECT_URI = "http://127.0.0.1:33418/callback";

export interface FlowAuth {
  url: string;
}

export async function registerClient(auth: FlowAuth, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${auth.url}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

export async function newClient(auth: FlowAuth, redirectUris = [REDIRECT_URI]): Promise<string> {
  const res = await registerClient(auth, { client_name: "Test MCP client", redirect_uris: redirectUris });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.client_id as string;
}

export function newVerifier(): string {
  return randomBytes(32).toString("base64url");
}

export async function tokenRequest(auth: FlowAuth, fields: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${auth.url}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

export interface Approval {
  clientId: string;
  userId: string;
  teamId: string | null;
  verifier?: string;
  now?: Date;
}

/** A code approved by `userId` for `teamId`, and the verifier that redeems it. */
export async function approvedCode(approval: Approval): Promise<{ code: string; verifier: string }> {
  const { db } = await testDatabase();
  const verifier = approval.verifier ?? newVerifier();
  const code = await issueAuthorizationCode(db, {
    clientId: approval.clientId,
    redirectUri: REDIRECT_URI,
    codeChallenge: s256(verifier),
    codeChallengeMethod: "S256",
    scope: "mcp:use",
    userId: approval.userId,
    teamId: approval.teamId,
    now: approval.now ?? new Date(),
  });
  return { code, verifier };
}

export function exchangeCode(auth: FlowAuth, clientId: string, code: string, verifier: string, redirectUri = REDIRECT_URI) {
  return tokenRequest(auth, { grant_type: "authorization_code", client_id: clientId, code, redirect_uri: redirectUri, code_verifier: verifier });
}

/** Registers a client, approves it for the creator and exchanges the code: the token response. */
export async function connectOAuth(auth: FlowAuth, creator: { userId: string; teamId: string }, now?: Date) {
  const clientId = await newClient(auth);
  const { code, verifier } = await approvedCode({ clientId, userId: creator.userId, teamId: creator.teamId, ...(now ? { now } : {}) });
  const res = await exchangeCode(auth, clientId, code, verifier);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { clientId, tokens: res.body as { access_token: string; refresh_token: string; expires_in: number; token_type: string; scope: string } };
}
