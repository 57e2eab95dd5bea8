// Sign-in through the authorization host as the first-party OAuth 2.1 client (PKCE S256). Tokens
// live in memory only: a reload signs in again by a redirect the host answers at once while its
// session lives (no page is shown), and an expiring access token is renewed with the refresh
// token, itself rotated on every renewal. Only the PKCE verifier of a sign-in under way waits in
// sessionStorage, for the one redirect back, and is removed when used.
import type { DashboardConfig } from "./config";

const PENDING = "subbridge.dashboard.sign-in.";
/** Renew this long before the access token's end, so no call meets an expired one. */
const RENEW_AHEAD_MS = 60_000;

let access: { token: string; expiresAt: number } | null = null;
let refresh: string | null = null;
let renewing: Promise<string> | null = null;

function randomString(bytes: number): string {
  const values = crypto.getRandomValues(new Uint8Array(bytes));
  return base64url(values);
}

function base64url(bytes: Uint8Array): string {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

async function challengeOf(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

/** Only a path of this dashboard comes back from the sign-in (never another origin). */
function sameOriginPath(value: string | null): string {
  if (!value || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/callback")) return "/";
  return value;
}

/** Sends the browser to the authorization host; the promise never settles (the page is leaving). */
export async function startSignIn(config: DashboardConfig, returnTo = location.pathname + location.search): Promise<never> {
  const verifier = randomString(48);
  const state = randomString(24);
  sessionStorage.setItem(PENDING + state, JSON.stringify({ verifier, returnTo: sameOriginPath(returnTo) }));
  const params = new URLSearchParams({
    response_type: "code",
    client_id: config.clientId,
    redirect_uri: config.redirectUri,
    scope: "mcp:use",
    state,
    code_challenge: await challengeOf(verifier),
    code_challenge_method: "S256",
  });
  location.assign(`${config.authUrl}/oauth/authorize?${params}`);
  return new Promise<never>(() => {});
}

interface TokenAnswer {
  access_token: string;
  refresh_token: string;
  expires_in: number;
}

async function tokenRequest(config: DashboardConfig, form: Record<string, string>): Promise<TokenAnswer> {
  const response = await fetch(`${config.authUrl}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
    credentials: "omit",
  });
  const body = (await response.json().catch(() => ({}))) as Partial<TokenAnswer> & { error?: string; error_description?: string };
  if (!response.ok || !body.access_token) throw new Error(body.error_description ?? body.error ?? `The sign-in failed (${response.status}).`);
  return body as TokenAnswer;
}

function keep(answer: TokenAnswer): string {
  access = { token: answer.access_token, expiresAt: Date.now() + answer.expires_in * 1000 };
  refresh = answer.refresh_token;
  return answer.access_token;
}

/**
 * The authorization host's answer on /callback: the code exchanged for tokens. Resolves to the
 * dashboard path the sign-in started from; throws with the host's reason (denied, expired...).
 */
export async function finishSignIn(config: DashboardConfig): Promise<string> {
  const params = new URLSearchParams(location.search);
  const state = params.get("state") ?? "";
  const stored = sessionStorage.getItem(PENDING + state);
  sessionStorage.removeItem(PENDING + state);
  if (params.get("error")) throw new Error(params.get("error_description") ?? params.get("error") ?? "The sign-in was refused.");
  if (!stored) throw new Error("This sign-in was not started here (or was already finished).");
  const { verifier, returnTo } = JSON.parse(stored) as { verifier: string; returnTo: string };
  keep(
    await tokenRequest(config, {
      grant_type: "authorization_code",
      client_id: config.clientId,
      code: params.get("code") ?? "",
      redirect_uri: config.redirectUri,
      code_verifier: verifier,
    }),
  );
  return sameOriginPath(returnTo);
}

/** A valid access token: the one held, a renewed one, or (nothing else working) a new sign-in. */
export async function accessToken(config: DashboardConfig): Promise<string> {
  if (access && access.expiresAt - RENEW_AHEAD_MS > Date.now()) return access.token;
  renewing ??= (async () => {
    try {
      if (refresh) return keep(await tokenRequest(config, { grant_type: "refresh_token", refresh_token: refresh, client_id: config.clientId }));
    } catch {
      // The connection ended (signed out elsewhere, removed from the team): sign in again below.
    }
    access = null;
    refresh = null;
    return startSignIn(config);
  })().finally(() => {
    renewing = null;
  });
  return renewing;
}

/** The API refused the token (revoked, or the creator left the team): the next call renews or signs in. */
export function forgetAccessToken(): void {
  access = null;
}

export function signedIn(): boolean {
  return access !== null;
}
