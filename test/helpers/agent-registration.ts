// Agent registration as an agent drives it with curl: JSON to /agent/identity(/claim), form posts
// to /oauth/token. The authorization server runs on a hand-moved clock, and the client's address
// is taken from X-Test-Ip so each test has its own per-address budget.
import assert from "node:assert/strict";
import { confirmAgentRegistration, describeAgentRegistration } from "../../src/modules/agent-registrations/confirmation.ts";
import { startAuth } from "./auth.ts";
import { testDatabase } from "./backends.ts";
import { TestClock } from "./clock.ts";
import type { TestCreator } from "./fixtures.ts";

export const CLAIM_GRANT = "urn:example:agent-auth:grant-type:claim";

export interface AgentAuth {
  url: string;
  clock: TestClock;
  close(): Promise<void>;
  register(body: Record<string, unknown>, ip?: string): Promise<Response>;
  renew(body: Record<string, unknown>, ip?: string): Promise<Response>;
  poll(claimToken: string): Promise<Response>;
}

export async function startAgentAuth(): Promise<AgentAuth> {
  // The clock starts just after an hour begins: the limits' windows are computed from this clock
  // while their KV counters expire in real time (the window's rest, plus a second), so a clock
  // frozen near a window's end would let a counter vanish in the middle of a slow test.
  const clock = new TestClock(Math.floor(Date.now() / 3_600_000) * 3_600_000 + 1_000);
  const auth = await startAuth({ now: clock.now, clientIp: (req) => String(req.headers["x-test-ip"] ?? "127.0.0.1") });
  const json =
    (path: string) =>
    (body: Record<string, unknown>, ip = "127.0.0.1") =>
      fetch(`${auth.url}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-test-ip": ip }, body: JSON.stringify(body) });
  return {
    url: auth.url,
    clock,
    close: auth.close,
    register: json("/agent/identity"),
    renew: json("/agent/identity/claim"),
    poll: (claimToken) =>
      fetch(`${auth.url}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: CLAIM_GRANT, claim_token: claimToken }).toString(),
      }),
  };
}

/** A refusal: the status, exactly {error, error_description}, and the code. */
export async function expectOAuthError(res: Response, status: number, error: string): Promise<string> {
  const body = (await res.json()) as Record<string, unknown>;
  assert.equal(res.status, status, `${error}: ${JSON.stringify(body)}`);
  assert.deepEqual(Object.keys(body), ["error", "error_description"]);
  assert.equal(body.error, error);
  assert.equal(typeof body.error_description, "string");
  return body.error_description as string;
}

export interface Registered {
  registration_id: string;
  registration_type: string;
  claim_url: string;
  claim_token: string;
  claim_token_expires: string;
  post_claim_scopes: string[];
  claim: { user_code: string; verification_uri: string; expires_in: number; interval: number };
}

export async function registered(res: Response): Promise<Registered> {
  const body = (await res.json()) as Registered;
  assert.equal(res.status, 200, JSON.stringify(body));
  return body;
}

/** A 6-digit code other than `code`. */
export const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

/** The claim page's calls for a signed-in creator, at the server's clock (team: the creator's own unless given). */
export function claimPage(auth: AgentAuth, who: TestCreator) {
  return {
    describe: async (reg: Registered) =>
      describeAgentRegistration((await testDatabase()).db, {
        registrationId: reg.registration_id,
        userId: who.userId,
        teamId: who.teamId,
        now: auth.clock.now(),
      }),
    confirm: async (reg: Registered, code: string, options: { teamId?: string; byId?: boolean } = {}) =>
      confirmAgentRegistration((await testDatabase()).db, {
        ...(options.byId === false ? {} : { registrationId: reg.registration_id }),
        code,
        userId: who.userId,
        teamId: options.teamId ?? who.teamId,
        now: auth.clock.now(),
      }),
  };
}
