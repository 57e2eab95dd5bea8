// Discord's rate limits in the driver (drivers/discord-rate-limits.ts), against the simulated
// Discord's buckets and 429s: a bucket the headers say is spent is waited for; drivers sharing a KV
// store (processes sharing Redis) share the buckets; the circuit breaker refuses calls locally past
// its count of invalid requests and lets them through again once the window has cooled; a storm of
// 429s while the connector sweep gives roles loses no grant (the ledger retries them).
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { syncPlatformAccess } from "../../../src/modules/connectors/access-sync.ts";
import { discordDriver } from "../../../src/modules/connectors/drivers/discord.ts";
import { DiscordRateLimits, routeOf, type DiscordRateLimitOptions } from "../../../src/modules/connectors/drivers/discord-rate-limits.ts";
import { PlatformError } from "../../../src/modules/connectors/drivers/driver.ts";
import { testDatabase, testKv } from "../../helpers/backends.ts";
import { TestClock } from "../../helpers/clock.ts";
import { newDiscordAuthorization, testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { OutageKv } from "../../helpers/outages.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { codesFor, redeem, seedPlan } from "../subscriptions/commerce.ts";
import { installPath } from "./support.ts";

const snowflake = () => String(400000000000000000n + BigInt(randomInt(1, 2 ** 47)));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A Discord session on the simulated Discord whose limits are `rateLimits`, in a new guild. */
async function session(rateLimits: DiscordRateLimits, options: { botToken?: string; guild?: string } = {}) {
  const fake = await testPlatform();
  const application = { ...fake.discordApplication, ...(options.botToken ? { botToken: options.botToken } : {}) };
  const driver = discordDriver({ apiUrl: fake.url, timeoutMs: 5_000, application, rateLimits });
  return driver.session({ fields: {}, accountId: options.guild ?? snowflake() });
}

/** Limits on `kv` whose waits are recorded (and slept for real: the simulated buckets keep real time). */
function recorded(kv: Awaited<ReturnType<typeof testKv>>, options: DiscordRateLimitOptions = {}) {
  const waits: number[] = [];
  const limits = new DiscordRateLimits(kv, { ...options, sleep: (ms) => (waits.push(ms), sleep(ms)) });
  return { limits, waits };
}

describe("Discord's rate limits", function () {
  this.timeout(60_000);

  afterEach(async () => {
    const fake = await testPlatform();
    fake.setDiscordRateLimit(null);
    fake.throttleDiscord(0, 0);
  });

  it("keys a route by its ids replaced and its major parameter", () => {
    assert.deepEqual(routeOf("PUT", "/guilds/123/members/456/roles/789"), { route: "PUT /guilds/:id/members/:id/roles/:id", major: "123" });
    assert.deepEqual(routeOf("DELETE", "/invites/AbC-1"), { route: "DELETE /invites/:id", major: "" });
    assert.deepEqual(routeOf("GET", "/users/@me"), { route: "GET /users/@me", major: "" });
  });

  it("waits for a bucket the headers say is spent, and only for that guild's", async () => {
    const fake = await testPlatform();
    fake.setDiscordRateLimit({ limit: 2, resetAfterSeconds: 0.6 });
    const throttled = fake.discordThrottled();
    const { limits, waits } = recorded(await testKv());
    const guild = snowflake();
    const bot = await session(limits, { guild });
    const started = Date.now();
    await bot.addRole(snowflake(), "200000000000000001");
    await bot.addRole(snowflake(), "200000000000000001");
    assert.deepEqual(waits, [], "two calls fit the bucket");
    await bot.addRole(snowflake(), "200000000000000001");
    // At least once: on a loaded machine the wait may end a moment before the bucket's reset, and wait again.
    assert.ok(waits.length >= 1, "the third waited for the bucket's reset");
    assert.ok(waits[0]! > 300 && waits[0]! <= 600, `waited ${waits[0]} ms`);
    assert.ok(Date.now() - started >= 500);
    // Another guild is another bucket (the guild is the route's major parameter).
    const waited = waits.length;
    await (await session(limits)).addRole(snowflake(), "200000000000000001");
    assert.equal(waits.length, waited);
    assert.equal(fake.discordThrottled(), throttled, "Discord never had to answer 429");
  });

  it("shares the buckets between drivers on one KV store (processes sharing Redis); a driver on its own meets Discord's 429", async () => {
    const fake = await testPlatform();
    fake.setDiscordRateLimit({ limit: 2, resetAfterSeconds: 0.6 });
    const throttled = fake.discordThrottled();
    const space = `discord-${randomInt(1e9)}`;
    const first = recorded(await testKv({ shared: space }));
    const second = recorded(await testKv({ shared: space }));
    const guild = snowflake();
    const a = await session(first.limits, { guild });
    await a.addRole(snowflake(), "200000000000000002");
    await a.addRole(snowflake(), "200000000000000002");
    await (await session(second.limits, { guild })).addRole(snowflake(), "200000000000000002");
    assert.deepEqual(first.waits, []);
    // At least once: on a loaded machine the wait may end a moment before the bucket's reset, and wait again.
    assert.ok(second.waits.length >= 1, "the second driver waited: the first had spent the bucket");
    assert.equal(fake.discordThrottled(), throttled);

    // The control: limits of their own know nothing of the spent bucket, so Discord answers 429 (then the call waits and is retried).
    const other = snowflake();
    const lone = recorded(await testKv());
    const b = await session(first.limits, { guild: other });
    await b.addRole(snowflake(), "200000000000000002");
    await b.addRole(snowflake(), "200000000000000002");
    await (await session(lone.limits, { guild: other })).addRole(snowflake(), "200000000000000002");
    assert.equal(fake.discordThrottled(), throttled + 1, "Discord refused the call once");
    assert.equal(lone.waits.length, 1, "the 429's retry_after was waited out and the call made again");
  });

  it("counts in this process while the KV store is unreachable: calls still go, and still wait for a spent bucket", async () => {
    const fake = await testPlatform();
    fake.setDiscordRateLimit({ limit: 1, resetAfterSeconds: 0.4 });
    const throttled = fake.discordThrottled();
    const kv = new OutageKv();
    kv.down = true;
    const { limits, waits } = recorded(kv);
    const bot = await session(limits);
    await bot.addRole(snowflake(), "200000000000000004");
    await bot.addRole(snowflake(), "200000000000000004");
    assert.ok(waits.length >= 1, "the bucket's state was kept in the process");
    assert.equal(fake.discordThrottled(), throttled);
  });

  it("opens the circuit past its count of invalid requests, logs it once, and closes once the window has cooled", async () => {
    const fake = await testPlatform();
    const clock = new TestClock();
    const warnings: unknown[] = [];
    const limits = new DiscordRateLimits(await testKv({ now: clock.nowMs }), {
      now: clock.nowMs,
      invalidLimit: 5,
      invalidWindowMs: 60_000,
      logger: { warn: (...args: unknown[]) => void warnings.push(args) } as never,
    });
    const revoked = await session(limits, { botToken: "fake.revoked-token" });
    for (let i = 0; i < 5; i++) await assert.rejects(revoked.sendMessage("300000000000000001", "hi"), { kind: "unauthorized" });
    const calls = fake.calls.length;
    const refusal = await revoked.sendMessage("300000000000000001", "hi").then(
      () => assert.fail("the call went through"),
      (err: unknown) => err as PlatformError,
    );
    assert.equal(refusal.kind, "rate_limited");
    assert.match(refusal.message, /holds back Discord calls.*5 refused calls/);
    assert.ok(refusal.retryAfterMs! > 0 && refusal.retryAfterMs! <= 120_000, String(refusal.retryAfterMs));
    // Open for the bot, whichever call: a good one is held back too, and neither reached Discord.
    await assert.rejects((await session(limits)).sendMessage("300000000000000001", "hi"), { kind: "rate_limited" });
    assert.equal(fake.calls.length, calls);
    assert.equal(warnings.length, 1);

    clock.advance(refusal.retryAfterMs!);
    await (await session(limits)).sendMessage("300000000000000001", "again");
    // A direct message is two calls: the DM channel, then the message.
    assert.equal(fake.calls.length, calls + 2, "the circuit closed: the call reached Discord");
  });
});

describe("a storm of Discord 429s during the connector sweep", function () {
  this.timeout(90_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });

  it("loses no role grant: the calls wait within their bound, the rest are deferred, and the sweeps that follow give every role", async () => {
    const fake = await testPlatform();
    const project = suite.creator.projectIds[0]!;
    const { code: oauth } = await newDiscordAuthorization();
    const install = await suite.client.post(installPath(project, "discord"), {
      oauth: { code: oauth, redirect_uri: "https://dashboard.test/discord" },
    });
    assert.equal(install.status, 201, JSON.stringify(install.body));
    const plan = await seedPlan(suite.creator, { resources: [{ mode: "role" }] });
    const role = "200000000000000003";
    const { db } = await testDatabase();
    await db("resources").where({ id: plan.resourceIds[0] }).update({ connector_key: "discord", kind: "role", platform_ref: role });
    const members: { id: string; user: string }[] = [];
    for (const code of await codesFor(suite.creator, plan, 6)) {
      const user = snowflake();
      const redemption = await redeem(suite.creator, project, code, { connectorKey: "discord", externalUserId: user, displayName: "Storm" });
      members.push({ id: redemption.member.id, user });
    }
    // The limiter's waits move the clock the sweeps run on, so two-second pauses cost no time.
    const clock = new TestClock();
    const limits = new DiscordRateLimits(await testKv({ now: clock.nowMs }), { now: clock.nowMs, sleep: async (ms) => clock.advance(ms) });
    const env = { platforms: { ...(await testPlatformEndpoints()), rateLimits: limits }, appKey: TEST_APP_KEY };
    const throttled = fake.discordThrottled();
    const mark = fake.calls.length;
    fake.throttleDiscord(20, 2, { global: true });

    const sweep = async () => {
      for (const member of members) await syncPlatformAccess(db, env, clock.now(), { memberId: member.id });
    };
    const began = clock.nowMs();
    await sweep();
    const waiting = await db("access_grants").whereIn(
      "member_id",
      members.map((m) => m.id),
    );
    const deferred = waiting.filter((g: { status: string }) => g.status === "pending");
    assert.ok(deferred.length > 0, "some grants were deferred");
    for (const grant of deferred) {
      assert.match(grant.platform_error, /^rate_limited: /);
      const retryAt = new Date(grant.platform_retry_at).getTime();
      // Deferred by Discord's own pause (2 s), not the ledger's back-off for a platform that does not answer (a minute).
      assert.ok(retryAt > began && retryAt < clock.nowMs() + 60_000, "tried again after Discord's pause");
    }
    for (let round = 0; round < 5; round++) {
      clock.advance(61_000);
      await sweep();
    }
    const grants = await db("access_grants").whereIn(
      "member_id",
      members.map((m) => m.id),
    );
    assert.deepEqual(
      grants.map((g: { status: string }) => g.status),
      members.map(() => "granted"),
    );
    assert.equal(fake.discordThrottled() - throttled, 20, "the whole storm was answered");
    const given = fake.calls.slice(mark).map((c) => c.name);
    for (const { user } of members) assert.ok(given.some((path) => path.endsWith(`/members/${user}/roles/${role}`)));
  });
});
