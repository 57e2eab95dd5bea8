// Agent registration without a browser, as an agent does it with curl: register, poll while the
// creator confirms (through the claim page's domain function), collect the token once, use it on
// the REST API. Also the registration's refusals, its default scope, what is stored (no secret in
// clear) and the per-address and per-email limits.
import assert from "node:assert/strict";
import { abilityCatalog } from "../../generated/catalog.ts";
import { sha256Hex } from "../../src/security/crypto.ts";
import { claimPage, expectOAuthError, registered, startAgentAuth, type AgentAuth } from "../helpers/agent-registration.ts";
import { testDatabase } from "../helpers/backends.ts";
import { createTestCreator, uniqueEmail } from "../helpers/fixtures.ts";
import { startApi, type RunningApi } from "../helpers/server.ts";

describe("agent registration (no browser)", () => {
  let auth: AgentAuth;
  let api: RunningApi;
  before(async () => {
    auth = await startAgentAuth();
    api = await startApi();
  });
  after(async () => {
    await auth.close();
    await api.close();
  });

  it("walks register -> pending -> creator confirms -> token collected once -> works on REST", async () => {
    const { db } = await testDatabase();
    const creator = await createTestCreator({ label: "agent-walk" });
    const res = await auth.register(
      {
        type: "service_auth",
        login_hint: `  ${creator.email.toUpperCase()} `,
        client_name: "Release bot",
        scope: "team:view project:view-any team:view",
      },
      "10.0.0.1",
    );
    assert.equal(res.headers.get("cache-control"), "no-store");
    const reg = await registered(res);
    assert.deepEqual(Object.keys(reg).sort(), [
      "claim",
      "claim_token",
      "claim_token_expires",
      "claim_url",
      "post_claim_scopes",
      "registration_id",
      "registration_type",
    ]);
    assert.equal(reg.registration_type, "service_auth");
    assert.equal(reg.claim_url, `${auth.url}/agent/claim?registration_id=${reg.registration_id}`);
    assert.match(reg.claim_token, /^sbc_[A-Za-z0-9]{40}$/);
    assert.equal(reg.claim_token_expires, new Date(auth.clock.nowMs() + 30 * 60_000).toISOString());
    assert.deepEqual(reg.post_claim_scopes, ["project:view-any", "team:view"]);
    assert.deepEqual(Object.keys(reg.claim).sort(), ["expires_in", "interval", "user_code", "verification_uri"]);
    assert.match(reg.claim.user_code, /^\d{6}$/);
    assert.equal(reg.claim.verification_uri, `${auth.url}/agent/claim`);
    assert.equal(reg.claim.expires_in, 600);
    assert.equal(reg.claim.interval, 5);

    await expectOAuthError(await auth.poll(reg.claim_token), 400, "authorization_pending");

    const page = claimPage(auth, creator);
    const view = await page.describe(reg);
    assert.equal(view.client_name, "Release bot");
    assert.deepEqual(view.abilities, ["project:view-any", "team:view"]);
    assert.equal(view.team.id, creator.teamId);
    assert.ok(view.team.name.length > 0);
    assert.equal(view.state, "registered");
    const confirmed = await page.confirm(reg, reg.claim.user_code);
    assert.equal(confirmed.state, "claimed");

    auth.clock.advance(5_000);
    const collected = await auth.poll(reg.claim_token);
    assert.equal(collected.status, 200);
    assert.equal(collected.headers.get("cache-control"), "no-store");
    const token = (await collected.json()) as Record<string, string>;
    assert.deepEqual(Object.keys(token).sort(), ["access_token", "registration_id", "scope", "token_type"]);
    assert.equal(token.token_type, "Bearer");
    assert.equal(token.scope, "project:view-any team:view");
    assert.equal(token.registration_id, reg.registration_id);
    assert.match(token.access_token!, /^sbt_live_\d+_/);

    const current = await fetch(`${api.url}/v1/teams/current`, { headers: { authorization: `Bearer ${token.access_token}` } });
    assert.equal(current.status, 200);
    assert.equal(((await current.json()) as { data: { id: string } }).data.id, creator.teamId);
    // Exactly the registration's abilities: nothing else.
    const tokens = await fetch(`${api.url}/v1/tokens`, { headers: { authorization: `Bearer ${token.access_token}` } });
    assert.equal(tokens.status, 403);

    const row = await db("personal_access_tokens")
      .where({ id: token.access_token!.split("_")[2] })
      .first();
    assert.equal(row.kind, "agent_registration");
    assert.equal(row.name, "Release bot");
    assert.equal(row.user_id, creator.userId);
    assert.equal(row.team_id, creator.teamId);
    assert.equal(row.expires_at, null);
    assert.deepEqual([...row.abilities].sort(), ["project:view-any", "team:view"]);
    const stored = await db("agent_registrations").where({ id: reg.registration_id }).first();
    assert.equal(stored.state, "collected");
    assert.equal(String(stored.token_id), String(row.id));

    const entries = await db("activity_log")
      .where({ team_id: creator.teamId })
      .whereIn("subject_type", ["agent-registration", "token"])
      .orderBy("seq");
    const mine = entries.filter((e) => e.subject_id === reg.registration_id || e.subject_id === String(row.id));
    assert.deepEqual(
      mine.map((e) => [e.subject_type, e.event, e.actor_kind, e.causer_id]),
      [
        ["agent-registration", "confirmed", "human", creator.userId],
        ["token", "created", "human", creator.userId],
        ["agent-registration", "collected", "human", creator.userId],
      ],
    );

    auth.clock.advance(5_000);
    await expectOAuthError(await auth.poll(reg.claim_token), 400, "expired_token");
  });

  it("stores only digests of the claim token and the user code", async () => {
    const { db } = await testDatabase();
    const reg = await registered(await auth.register({ type: "service_auth", login_hint: uniqueEmail("stored"), client_name: "Stored" }, "10.0.0.2"));
    const row = await db("agent_registrations").where({ id: reg.registration_id }).first();
    assert.equal(row.claim_token_hash, sha256Hex(reg.claim_token));
    assert.equal(row.user_code_hash, sha256Hex(`${reg.registration_id}:${reg.claim.user_code}`));
    const text = JSON.stringify(row);
    assert.ok(!text.includes(reg.claim_token), "the claim token is not stored in clear");
    assert.ok(!text.includes(reg.claim_token.slice(4)), "nor its random part");
    assert.equal(row.state, "registered");
    assert.equal(row.wrong_code_count, 0);
  });

  it("asks for every read-only mintable ability when scope is omitted, and no write", async () => {
    const reg = await registered(
      await auth.register({ type: "service_auth", login_hint: uniqueEmail("default"), client_name: "Reader" }, "10.0.0.3"),
    );
    const expected = Object.entries(abilityCatalog)
      .filter(([a, entry]) => entry.mintable && ["view-any", "view", "read"].includes(a.split(":")[1]!))
      .map(([a]) => a)
      .sort();
    assert.deepEqual(reg.post_claim_scopes, expected);
    assert.ok(reg.post_claim_scopes.includes("team:view") && reg.post_claim_scopes.includes("account:read"));
    assert.ok(reg.post_claim_scopes.every((a) => !/:(create|update|delete|write|manage)$/.test(a)));
  });

  it("accepts the legacy identity_assertion and an email with no account, alike", async () => {
    const reg = await registered(
      await auth.register(
        { type: "identity_assertion", assertion_type: "verified_email", assertion: uniqueEmail("nobody"), client_name: "Legacy" },
        "10.0.0.4",
      ),
    );
    assert.equal(reg.registration_type, "identity_assertion");
    assert.match(reg.claim.user_code, /^\d{6}$/);
  });

  it("refuses what the description lists: anonymous, other assertions, bad email, bad scope", async () => {
    const base = { type: "service_auth", login_hint: uniqueEmail("refused"), client_name: "Bot" };
    const cases: [Record<string, unknown>, string][] = [
      [{ type: "anonymous", client_name: "Bot" }, "anonymous_not_enabled"],
      [{ type: "identity_assertion", assertion_type: "id_token", assertion: "x", client_name: "Bot" }, "unsupported_assertion_type"],
      [{ ...base, login_hint: "not-an-address" }, "invalid_request"],
      [{ ...base, login_hint: undefined }, "invalid_request"],
      [{ ...base, type: "magic" }, "invalid_request"],
      [{ ...base, client_name: "" }, "invalid_request"],
      [{ ...base, client_name: "Release bot\nhttps://evil.example" }, "invalid_request"],
      [{ ...base, client_name: "Release\u0000bot" }, "invalid_request"],
      [{ ...base, scope: "team:view bogus:read" }, "invalid_scope"],
      [{ ...base, scope: "token:create" }, "invalid_scope"],
      [{ ...base, scope: "   " }, "invalid_scope"],
      [{ ...base, scope: 7 }, "invalid_request"],
    ];
    for (const [body, error] of cases) await expectOAuthError(await auth.register(body, "10.0.0.5"), 400, error);
    const notJson = await fetch(`${auth.url}/agent/identity`, { method: "POST", headers: { "content-type": "text/plain" }, body: "hi" });
    await expectOAuthError(notJson, 400, "invalid_request");
  });

  it("allows 10 registrations an hour per address, then 429 with Retry-After", async () => {
    for (let i = 0; i < 10; i++)
      await registered(await auth.register({ type: "service_auth", login_hint: uniqueEmail("ip"), client_name: "Bot" }, "10.1.0.1"));
    const res = await auth.register({ type: "service_auth", login_hint: uniqueEmail("ip"), client_name: "Bot" }, "10.1.0.1");
    await expectOAuthError(res, 429, "too_many_requests");
    const retryAfter = Number(res.headers.get("retry-after"));
    assert.ok(retryAfter > 0 && retryAfter <= 2 * 3600, `Retry-After ${retryAfter}`);
    await registered(await auth.register({ type: "service_auth", login_hint: uniqueEmail("ip"), client_name: "Bot" }, "10.1.0.2"));
  });

  it("allows 10 registrations an hour per named email (however written), then 429 with Retry-After", async () => {
    const email = uniqueEmail("mail");
    for (let i = 0; i < 10; i++) {
      const hint = i % 2 ? email.toUpperCase() : email;
      await registered(await auth.register({ type: "service_auth", login_hint: hint, client_name: "Bot" }, `10.2.0.${i}`));
    }
    const res = await auth.register(
      { type: "identity_assertion", assertion_type: "verified_email", assertion: email, client_name: "Bot" },
      "10.2.1.1",
    );
    await expectOAuthError(res, 429, "too_many_requests");
    assert.ok(Number(res.headers.get("retry-after")) > 0);
    await registered(await auth.register({ type: "service_auth", login_hint: uniqueEmail("mail"), client_name: "Bot" }, "10.2.1.1"));
    auth.clock.advance(Number(res.headers.get("retry-after")) * 1000);
    await registered(await auth.register({ type: "service_auth", login_hint: email, client_name: "Bot" }, "10.2.1.2"));
  });

  it("allows 60 requests a minute per address to the registration endpoints", async () => {
    for (let i = 0; i < 60; i++)
      await expectOAuthError(await auth.renew({ claim_token: "sbc_nothing", email: "a@b.co" }, "10.3.0.1"), 400, "invalid_claim_token");
    const res = await auth.register({ type: "service_auth", login_hint: uniqueEmail("minute"), client_name: "Bot" }, "10.3.0.1");
    await expectOAuthError(res, 429, "too_many_requests");
    assert.ok(Number(res.headers.get("retry-after")) > 0);
  });
});
