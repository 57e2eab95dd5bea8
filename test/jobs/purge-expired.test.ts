// The purge jobs at an injected clock: what is past its keep-by date goes (expired sessions;
// sign-ups, OAuth codes and access tokens, dead refresh-token families and agent registrations a
// day after they ended), everything still usable or recently ended stays, and a second run deletes
// nothing more. The clock is years in the past so that no other test's rows are ever due here.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { purgeExpiredAccountRows } from "../../src/modules/account/jobs.ts";
import { purgeEndedRegistrations } from "../../src/modules/agent-registrations/jobs.ts";
import { purgeExpiredGrants } from "../../src/modules/oauth/jobs.ts";
import { purgeExpiredIdempotencyRecords } from "../../src/modules/idempotency/jobs.ts";
import type { ScheduledJob } from "../../src/modules/jobs/scheduled-job.ts";
import { discoverScheduledJobs } from "../../src/workers/jobs/discovery.ts";
import { deleteInBatches } from "../../src/db/purge.ts";
import { randomToken, sha256Hex } from "../../src/security/crypto.ts";
import { testDatabase } from "../helpers/backends.ts";
import { createTestCreator, type TestCreator } from "../helpers/fixtures.ts";

const T0 = Date.parse("2001-01-01T00:00:00.000Z");
const HOUR = 3600_000;
const DAY = 24 * HOUR;
const at = (offset: number) => new Date(T0 + offset);

async function run(job: ScheduledJob): Promise<number> {
  const { db } = await testDatabase();
  return (await job.run({ db, now: at(0) })).changed;
}

/** Which of the named keys still have a row in `table`. */
async function remaining(table: string, key: string, keys: Record<string, string | number>): Promise<string[]> {
  const { db } = await testDatabase();
  const present = new Set((await db(table).whereIn(key, Object.values(keys)).pluck(key)).map(String));
  return Object.entries(keys)
    .filter(([, value]) => present.has(String(value)))
    .map(([name]) => name)
    .sort();
}

describe("purge jobs (expired sessions, sign-ups, OAuth grants, agent registrations)", () => {
  let creator: TestCreator;
  before(async () => {
    creator = await createTestCreator({ label: "purge" });
  });

  it("are discovered by the worker", async () => {
    const names = (await discoverScheduledJobs()).map((j) => j.name);
    for (const name of ["account.purge-expired", "oauth.purge-expired", "agent-registrations.purge-expired", "idempotency.purge-expired"])
      assert.ok(names.includes(name), name);
  });

  it("account.purge-expired: expired sessions, and sign-ups ended more than a day ago", async () => {
    const { db } = await testDatabase();
    const session = async (expiresAt: Date, userId: string | null = null) => {
      const keyHash = sha256Hex(randomToken(20));
      await db("auth_sessions").insert({
        key_hash: keyHash,
        user_id: userId,
        data: "{}",
        expires_at: expiresAt,
        created_at: at(-DAY),
        updated_at: at(-DAY),
      });
      return keyHash;
    };
    const sessions = {
      expired: await session(at(-HOUR), creator.userId),
      expiringNow: await session(at(0)),
      live: await session(at(HOUR), creator.userId),
    };
    const signUp = async (expiresAt: Date, completedAt: Date | null) => {
      const id = randomUUID();
      await db("account_sign_ups").insert({
        id,
        email: `purge-${id}@example.test`,
        password_hash: "scrypt$not-a-real-hash",
        token_hash: sha256Hex(randomToken(20)),
        expires_at: expiresAt,
        completed_at: completedAt,
        created_at: at(-3 * DAY),
      });
      return id;
    };
    const signUps = {
      expiredLongAgo: await signUp(at(-2 * DAY), null),
      expiredRecently: await signUp(at(-HOUR), null),
      completedLongAgo: await signUp(at(DAY), at(-2 * DAY)),
      completedRecently: await signUp(at(DAY), at(-HOUR)),
      pending: await signUp(at(DAY), null),
    };

    assert.ok((await run(purgeExpiredAccountRows)) >= 4);
    assert.deepEqual(await remaining("auth_sessions", "key_hash", sessions), ["live"]);
    assert.deepEqual(await remaining("account_sign_ups", "id", signUps), ["completedRecently", "expiredRecently", "pending"]);
    assert.equal(await run(purgeExpiredAccountRows), 0, "a second run deletes nothing more");
  });

  it("account.purge-expired: identity links a day after they expired", async () => {
    const { db } = await testDatabase();
    const installation = randomUUID();
    await db("connector_installations").insert({
      id: installation,
      team_id: creator.teamId,
      project_id: creator.projectIds[0],
      connector_key: "telegram",
      created_at: at(-3 * DAY),
      updated_at: at(-3 * DAY),
    });
    const link = async (expiresAt: Date, usedAt: Date | null) => {
      const id = randomUUID();
      await db("identity_link_tokens").insert({
        id,
        user_id: creator.userId,
        installation_id: installation,
        token_hash: sha256Hex(randomToken(20)),
        expires_at: expiresAt,
        used_at: usedAt,
        created_at: at(-3 * DAY),
      });
      return id;
    };
    const links = {
      expiredLongAgo: await link(at(-2 * DAY), null),
      usedLongAgo: await link(at(-2 * DAY), at(-2 * DAY - HOUR)),
      expiredRecently: await link(at(-HOUR), null),
      live: await link(at(HOUR), null),
    };
    assert.ok((await run(purgeExpiredAccountRows)) >= 2);
    assert.deepEqual(await remaining("identity_link_tokens", "id", links), ["expiredRecently", "live"]);
    await db("connector_installations").where({ id: installation }).delete();
  });

  it("oauth.purge-expired: codes and access tokens a day after expiry, refresh tokens of dead connections only", async () => {
    const { db } = await testDatabase();
    const clientId = `purge-client-${randomUUID()}`;
    await db("oauth_clients").insert({
      client_id: clientId,
      client_name: "Purge test",
      redirect_uris: JSON.stringify(["http://localhost/cb"]),
      created_at: at(-40 * DAY),
    });
    const owner = { client_id: clientId, user_id: creator.userId, team_id: creator.teamId, scope: "mcp:use" };
    const code = async (expiresAt: Date) => {
      const hash = sha256Hex(randomToken(20));
      await db("oauth_authorization_codes").insert({
        ...owner,
        code_hash: hash,
        redirect_uri: "http://localhost/cb",
        code_challenge: "x".repeat(43),
        expires_at: expiresAt,
        created_at: at(-3 * DAY),
      });
      return hash;
    };
    const codes = { expiredLongAgo: await code(at(-2 * DAY)), expiredRecently: await code(at(-HOUR)) };
    const family = { dead: randomUUID(), revoked: randomUUID(), live: randomUUID() };
    const accessToken = async (familyId: string, expiresAt: Date) => {
      const [row] = (await db("oauth_access_tokens")
        .insert({ ...owner, secret_hash: sha256Hex(randomToken(20)), family_id: familyId, expires_at: expiresAt, created_at: at(-3 * DAY) })
        .returning("id")) as { id: string | number }[];
      return String(row!.id);
    };
    const accessTokens = {
      expiredLongAgo: await accessToken(family.live, at(-2 * DAY)),
      expiredRecently: await accessToken(family.live, at(-HOUR)),
      live: await accessToken(family.live, at(HOUR)),
    };
    const refreshToken = async (familyId: string, status: string, expiresAt: Date) => {
      const hash = sha256Hex(randomToken(20));
      await db("oauth_refresh_tokens").insert({
        ...owner,
        token_hash: hash,
        family_id: familyId,
        status,
        expires_at: expiresAt,
        created_at: at(-40 * DAY),
      });
      return hash;
    };
    const refreshTokens = {
      deadRotated: await refreshToken(family.dead, "rotated", at(-40 * DAY)),
      deadActive: await refreshToken(family.dead, "active", at(-2 * DAY)),
      revoked: await refreshToken(family.revoked, "revoked", at(-3 * DAY)),
      // A live connection keeps its spent tokens: presented again, one still revokes the family.
      liveRotated: await refreshToken(family.live, "rotated", at(-2 * DAY)),
      liveActive: await refreshToken(family.live, "active", at(10 * DAY)),
    };

    assert.ok((await run(purgeExpiredGrants)) >= 5);
    assert.deepEqual(await remaining("oauth_authorization_codes", "code_hash", codes), ["expiredRecently"]);
    assert.deepEqual(await remaining("oauth_access_tokens", "id", accessTokens), ["expiredRecently", "live"]);
    assert.deepEqual(await remaining("oauth_refresh_tokens", "token_hash", refreshTokens), ["liveActive", "liveRotated"]);
    assert.equal((await db("oauth_clients").where({ client_id: clientId })).length, 1, "a client with a live connection stays");
    assert.equal(await run(purgeExpiredGrants), 0, "a second run deletes nothing more");
  });

  it("oauth.purge-expired: clients older than a day with no code or token left", async () => {
    const { db } = await testDatabase();
    const client = async (label: string, createdAt: Date) => {
      const clientId = `purge-${label}-${randomUUID()}`;
      await db("oauth_clients").insert({
        client_id: clientId,
        client_name: label,
        redirect_uris: JSON.stringify(["http://localhost/cb"]),
        created_at: createdAt,
      });
      return clientId;
    };
    const clients = {
      neverUsed: await client("never-used", at(-2 * DAY)),
      justRegistered: await client("just-registered", at(-HOUR)),
      withCode: await client("with-code", at(-2 * DAY)),
      withRefreshToken: await client("with-refresh", at(-60 * DAY)),
    };
    const owner = { user_id: creator.userId, team_id: creator.teamId, scope: "mcp:use" };
    await db("oauth_authorization_codes").insert({
      ...owner,
      client_id: clients.withCode,
      code_hash: sha256Hex(randomToken(20)),
      redirect_uri: "http://localhost/cb",
      code_challenge: "x".repeat(43),
      expires_at: at(-HOUR),
      created_at: at(-HOUR),
    });
    await db("oauth_refresh_tokens").insert({
      ...owner,
      client_id: clients.withRefreshToken,
      token_hash: sha256Hex(randomToken(20)),
      family_id: randomUUID(),
      status: "active",
      expires_at: at(10 * DAY),
      created_at: at(-20 * DAY),
    });
    await run(purgeExpiredGrants);
    assert.deepEqual(await remaining("oauth_clients", "client_id", clients), ["justRegistered", "withCode", "withRefreshToken"]);
  });

  it("agent-registrations.purge-expired: registrations a day after their claim token expired, whatever their state", async () => {
    const { db } = await testDatabase();
    const registration = async (state: string, claimExpiresAt: Date) => {
      const id = randomUUID();
      await db("agent_registrations").insert({
        id,
        registration_type: "service_auth",
        client_name: "Purge agent",
        login_email: creator.email,
        abilities: JSON.stringify(["project:view-any"]),
        claim_token_hash: sha256Hex(randomToken(20)),
        claim_expires_at: claimExpiresAt,
        user_code_hash: sha256Hex(randomToken(8)),
        user_code_expires_at: new Date(claimExpiresAt.getTime() - 20 * 60_000),
        state,
        created_at: new Date(claimExpiresAt.getTime() - 30 * 60_000),
        updated_at: new Date(claimExpiresAt.getTime() - 30 * 60_000),
      });
      return id;
    };
    const registrations = {
      unconfirmedLongAgo: await registration("registered", at(-2 * DAY)),
      endedLongAgo: await registration("expired", at(-2 * DAY)),
      collectedLongAgo: await registration("collected", at(-2 * DAY)),
      endedRecently: await registration("expired", at(-HOUR)),
      open: await registration("registered", at(20 * 60_000)),
    };

    assert.ok((await run(purgeEndedRegistrations)) >= 3);
    assert.deepEqual(await remaining("agent_registrations", "id", registrations), ["endedRecently", "open"]);
    assert.equal(await run(purgeEndedRegistrations), 0, "a second run deletes nothing more");
  });

  it("idempotency.purge-expired: kept responses once their 24 hours are over", async () => {
    const { db } = await testDatabase();
    const record = async (createdAt: Date) => {
      const key = sha256Hex(randomToken(20));
      await db("idempotency_records").insert({ record_key: key, request_hash: sha256Hex("{}"), status: 201, body: "sealed", created_at: createdAt });
      return key;
    };
    const keys = { overDay: await record(at(-DAY - 1)), exactlyDay: await record(at(-DAY)), recent: await record(at(-DAY + 1)) };
    assert.equal(await run(purgeExpiredIdempotencyRecords), 2);
    assert.deepEqual(await remaining("idempotency_records", "record_key", keys), ["recent"]);
    assert.equal(await run(purgeExpiredIdempotencyRecords), 0);
  });

  it("clears a backlog in bounded batches until none is left", async () => {
    const { db } = await testDatabase();
    const marker = `purge-batch-${randomUUID()}`;
    const keys = Array.from({ length: 5 }, () => sha256Hex(randomToken(20)));
    await db("auth_sessions").insert(
      keys.map((key) => ({
        key_hash: key,
        user_id: null,
        data: JSON.stringify({ marker }),
        expires_at: at(-DAY),
        created_at: at(-DAY),
        updated_at: at(-DAY),
      })),
    );
    const deleted = await deleteInBatches(db, "auth_sessions", "key_hash", (q) => q.whereIn("key_hash", keys), 2);
    assert.equal(deleted, 5);
    assert.equal((await db("auth_sessions").whereIn("key_hash", keys)).length, 0);
  });
});
