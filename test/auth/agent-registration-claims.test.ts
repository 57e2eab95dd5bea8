// Agent registration after step 1: renewing the code (POST /agent/identity/claim), the creator's
// confirmation (the claim page's domain function) and polling the claim grant - every refusal,
// slow_down, 5 wrong codes, the 10-minute code and the 30-minute claim token on a moved clock.
import assert from "node:assert/strict";
import { AgentRegistrationError } from "../../src/modules/agent-registrations/registrations.ts";
import {
  claimPage,
  expectOAuthError,
  registered,
  startAgentAuth,
  wrongCode,
  type AgentAuth,
  type Registered,
} from "../helpers/agent-registration.ts";
import { testDatabase } from "../helpers/backends.ts";
import { createTestCreator, type TestCreator } from "../helpers/fixtures.ts";

describe("agent registration: codes, confirmation and polling", () => {
  let auth: AgentAuth;
  // The named creator, and another account that must not be able to confirm.
  let [creator, other] = [] as unknown as [TestCreator, TestCreator];
  before(async () => {
    [auth, creator, other] = await Promise.all([
      startAgentAuth(),
      createTestCreator({ label: "agent-claims" }),
      createTestCreator({ label: "agent-other" }),
    ]);
  });
  after(() => auth.close());

  let ip = 0;
  const register = async () =>
    registered(
      await auth.register({ type: "service_auth", login_hint: creator.email, client_name: "Claims bot", scope: "team:view" }, `10.9.0.${++ip}`),
    );

  const confirm = (reg: Registered, code: string, who: TestCreator = creator, teamId = who.teamId, byId = true) =>
    claimPage(auth, who).confirm(reg, code, { teamId, byId });

  async function refusedWith(work: Promise<unknown>, code: string): Promise<AgentRegistrationError> {
    const err = await work.then(
      () => assert.fail(`expected ${code}`),
      (e: unknown) => e,
    );
    assert.ok(err instanceof AgentRegistrationError, String(err));
    assert.equal(err.code, code, err.message);
    return err;
  }

  it("answers the token endpoint's refusals: unknown claim token, missing claim token, slow_down", async () => {
    await expectOAuthError(await auth.poll("sbc_unknown"), 400, "invalid_claim_token");
    const missing = await fetch(`${auth.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=urn%3Aexample%3Aagent-auth%3Agrant-type%3Aclaim",
    });
    await expectOAuthError(missing, 400, "invalid_request");
    const reg = await register();
    await expectOAuthError(await auth.poll(reg.claim_token), 400, "authorization_pending");
    auth.clock.advance(4_999);
    await expectOAuthError(await auth.poll(reg.claim_token), 400, "slow_down");
    auth.clock.advance(5_000);
    await expectOAuthError(await auth.poll(reg.claim_token), 400, "authorization_pending");
    await confirm(reg, reg.claim.user_code);
    auth.clock.advance(1_000);
    await expectOAuthError(await auth.poll(reg.claim_token), 400, "slow_down");
    auth.clock.advance(5_000);
    assert.equal((await auth.poll(reg.claim_token)).status, 200);
  });

  it("renews the code: a fresh claim_attempt (also under claim); the old code stops working", async () => {
    const reg = await register();
    await expectOAuthError(await auth.renew({ claim_token: "sbc_unknown", email: creator.email }), 400, "invalid_claim_token");
    await expectOAuthError(await auth.renew({ claim_token: reg.claim_token, email: other.email }), 400, "email_mismatch");
    await expectOAuthError(await auth.renew({ claim_token: reg.claim_token }), 400, "invalid_request");
    auth.clock.advance(60_000);
    const res = await auth.renew({ claim_token: reg.claim_token, email: creator.email.toUpperCase() });
    const body = (await res.json()) as Record<string, any>;
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.deepEqual(Object.keys(body).sort(), ["claim", "claim_attempt", "registration_id"]);
    assert.deepEqual(body.claim, body.claim_attempt);
    assert.deepEqual(Object.keys(body.claim_attempt).sort(), ["expires_in", "interval", "user_code", "verification_uri"]);
    assert.match(body.claim_attempt.user_code, /^\d{6}$/);
    assert.equal(body.claim_attempt.expires_in, 600);
    assert.equal(body.claim_attempt.interval, 5);
    assert.equal(body.claim_attempt.verification_uri, `${auth.url}/agent/claim`);
    if (body.claim_attempt.user_code !== reg.claim.user_code) await refusedWith(confirm(reg, reg.claim.user_code), "wrong_code");
    await confirm(reg, body.claim_attempt.user_code);
    await expectOAuthError(await auth.renew({ claim_token: reg.claim_token, email: creator.email }), 400, "claimed_or_in_flight");
  });

  it("ends a registration at the 5th wrong code: claim_expired, expired_token, no confirmation", async () => {
    const reg = await register();
    const wrong = wrongCode(reg.claim.user_code);
    for (let i = 0; i < 4; i++) await refusedWith(confirm(reg, wrong), "wrong_code");
    await refusedWith(confirm(reg, wrong), "registration_expired");
    await refusedWith(confirm(reg, reg.claim.user_code), "registration_expired");
    await expectOAuthError(await auth.renew({ claim_token: reg.claim_token, email: creator.email }), 400, "claim_expired");
    await expectOAuthError(await auth.poll(reg.claim_token), 400, "expired_token");
    const { db } = await testDatabase();
    const row = await db("agent_registrations").where({ id: reg.registration_id }).first();
    assert.equal(row.state, "expired");
    assert.equal(row.wrong_code_count, 5);
  });

  it("refuses a code after its 10 minutes; a renewed code confirms", async () => {
    const reg = await register();
    auth.clock.advance(10 * 60_000);
    await refusedWith(confirm(reg, reg.claim.user_code), "code_expired");
    const renewed = (await (await auth.renew({ claim_token: reg.claim_token, email: creator.email })).json()) as { claim: { user_code: string } };
    const view = await confirm(reg, renewed.claim.user_code);
    assert.equal(view.state, "claimed");
  });

  it("ends everything after the claim token's 30 minutes", async () => {
    const reg = await register();
    const confirmedLate = await register();
    await confirm(confirmedLate, confirmedLate.claim.user_code);
    auth.clock.advance(30 * 60_000);
    await refusedWith(confirm(reg, reg.claim.user_code), "registration_expired");
    await expectOAuthError(await auth.renew({ claim_token: reg.claim_token, email: creator.email }), 400, "claim_expired");
    await expectOAuthError(await auth.poll(reg.claim_token), 400, "expired_token");
    await expectOAuthError(await auth.poll(confirmedLate.claim_token), 400, "expired_token");
  });

  it("lets only the named creator confirm, without naming the address, on a team they work in", async () => {
    const reg = await register();
    const { db } = await testDatabase();
    const err = await refusedWith(confirm(reg, reg.claim.user_code, other), "wrong_account");
    assert.ok(!err.message.includes(creator.email) && !err.message.includes("@"));
    await refusedWith(claimPage(auth, other).describe(reg), "wrong_account");
    await refusedWith(confirm(reg, reg.claim.user_code, creator, other.teamId), "team_not_visible");
    await refusedWith(confirm({ ...reg, registration_id: "00000000-0000-4000-8000-000000000000" }, reg.claim.user_code), "not_found");
    await refusedWith(confirm({ ...reg, registration_id: "not-a-uuid" }, reg.claim.user_code), "not_found");
    // None of those counted as a wrong code.
    assert.equal((await db("agent_registrations").where({ id: reg.registration_id }).first()).wrong_code_count, 0);
    await confirm(reg, reg.claim.user_code);
    await refusedWith(confirm(reg, reg.claim.user_code), "already_confirmed");
    const view = await claimPage(auth, creator).describe(reg);
    assert.equal(view.state, "claimed");
  });

  it("confirms by the code alone among the creator's open registrations", async () => {
    const first = await register();
    const second = await register();
    const view = await confirm(second, second.claim.user_code, creator, creator.teamId, false);
    assert.equal(view.registration_id, second.registration_id);
    auth.clock.advance(5_000);
    assert.equal((await auth.poll(second.claim_token)).status, 200);
    await expectOAuthError(await auth.poll(first.claim_token), 400, "authorization_pending");
  });
});
