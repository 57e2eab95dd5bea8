// Discord access that stays right (issue 45): the installation's removal_behaviour (remove_roles
// takes the role only; kick also takes the member out of the server once no grant there covers
// them) and its log channel (joins, removals and refused role changes posted there as one line
// each, through the bot message outbox; a post that fails takes nothing from the grant).
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { syncPlatformAccess } from "../../../src/modules/connectors/access-sync.ts";
import { cancelSubscription, expireSubscription } from "../../../src/modules/subscriptions/subscriptions.ts";
import { sendDueBotMessages } from "../../../src/workers/bot-messages/worker.ts";
import { testDatabase, testKv } from "../../helpers/backends.ts";
import { newDiscordAuthorization, testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { repositoryConnectorRegistry, TEST_APP_KEY, testLogger } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { asDomain, codesFor, redeem, seedPlan } from "../subscriptions/commerce.ts";
import { installPath, newProject } from "./support.ts";

const snowflake = (base: bigint) => String(base + BigInt(randomInt(1, 1e9)));

describe("Discord access: removal behaviour and the log channel", function () {
  this.timeout(90_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });

  /** A new project with Discord installed with `settings`, a plan granting two roles, and a member who redeemed it. */
  async function granted(settings: Record<string, unknown>) {
    const project = await newProject(suite.creator);
    const { code: oauth, guild } = await newDiscordAuthorization();
    const install = await suite.client.post(installPath(project, "discord"), {
      oauth: { code: oauth, redirect_uri: "https://dashboard.test/discord" },
      settings,
    });
    assert.equal(install.status, 201, JSON.stringify(install.body));
    const creator = { ...suite.creator, projectIds: [project] };
    const plan = await seedPlan(creator, {
      connector: "discord",
      resources: [
        { mode: "role", title: "Gold" },
        { mode: "role", title: "Silver" },
      ],
    });
    const roles = [snowflake(200000000000000000n), snowflake(210000000000000000n)];
    const { db } = await testDatabase();
    for (const [i, role] of roles.entries()) await db("resources").where({ id: plan.resourceIds[i] }).update({ platform_ref: role });
    const [code] = await codesFor(creator, plan);
    const user = snowflake(400000000000000000n);
    const redemption = await redeem(creator, project, code!, { connectorKey: "discord", externalUserId: user, displayName: "Dee" });
    const env = { platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY };
    assert.equal(await syncPlatformAccess(db, env, new Date(), { memberId: redemption.member.id }), 2);
    const fake = await testPlatform();
    assert.deepEqual(
      fake
        .discordMembers(guild.id)
        .find((m) => m.user === user)
        ?.roles.sort(),
      [...roles].sort(),
    );
    return { project, creator, guild, roles, user, redemption, env, db, fake, installation: install.body.data };
  }

  /** Sends the installation's queued bot messages now; answers the log channel's posts. */
  async function posted(installationId: string, channel: string): Promise<string[]> {
    const { db } = await testDatabase();
    const fake = await testPlatform();
    const mark = fake.calls.length;
    const env = { connectors: repositoryConnectorRegistry(), platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY };
    // The bot's pacing gives one channel a post a second: a few rounds a few seconds apart (of the worker's clock) send them all.
    const start = Date.now();
    for (let round = 1; round <= 4; round++)
      await sendDueBotMessages({
        db,
        kv: await testKv(),
        env,
        logger: testLogger,
        now: new Date(start + round * 5_000),
        installations: [installationId],
      });
    return fake.calls
      .slice(mark)
      .filter((c) => c.method === "POST" && c.name === `/channels/${channel}/messages`)
      .map((c) => String(c.params.content));
  }

  it("remove_roles (the default) takes the roles and leaves the member in the server [claim discord.settings.removal_behaviour discord.capabilities.access_control]", async () => {
    const { creator, guild, user, redemption, env, db, fake } = await granted({ removal_behaviour: "remove_roles" });
    await asDomain(creator, (ctx) => expireSubscription(ctx, redemption.subscription.id), { system: true });
    assert.equal(await syncPlatformAccess(db, env, new Date(), { memberId: redemption.member.id }), 2);
    assert.deepEqual(
      fake.discordMembers(guild.id).find((m) => m.user === user),
      { user, roles: [] },
      "still a member, with no paid role",
    );
  });

  it("kick takes the member out of the server once their last covering grant there ends [claim discord.settings.removal_behaviour discord.overview.paid-roles-are-given-on-purchase]", async () => {
    const { creator, guild, user, redemption, env, db, fake } = await granted({ removal_behaviour: "kick" });
    const mark = fake.calls.length;
    await asDomain(creator, (ctx) => expireSubscription(ctx, redemption.subscription.id), { system: true });
    assert.equal(await syncPlatformAccess(db, env, new Date(), { memberId: redemption.member.id }), 2);
    assert.equal(
      fake.discordMembers(guild.id).find((m) => m.user === user),
      undefined,
      "kicked",
    );
    const kicks = fake.calls.slice(mark).filter((c) => c.method === "DELETE" && c.name === `/guilds/${guild.id}/members/${user}`);
    assert.ok(kicks.length >= 1, "a kick call");
    const grants = await db("access_grants").where({ member_id: redemption.member.id }).whereNull("platform_synced_at");
    assert.equal(grants.length, 0, "both revoked grants are in line (the second role went with the kick)");
  });

  it("kick leaves a member whom another grant on the installation still covers", async () => {
    const { creator, guild, user, redemption, env, db, fake } = await granted({ removal_behaviour: "kick" });
    // A second plan granting another role, redeemed by the same member: it still covers them.
    const other = await seedPlan(creator, { connector: "discord", resources: [{ mode: "role", title: "Bronze" }] });
    const bronze = snowflake(220000000000000000n);
    await db("resources").where({ id: other.resourceIds[0] }).update({ platform_ref: bronze });
    const [code] = await codesFor(creator, other);
    // Cancelled, the first subscription's access runs to its end; the second is taken meanwhile.
    await asDomain(creator, (ctx) => cancelSubscription(ctx, redemption.subscription.id));
    await redeem(creator, other.projectId, code!, { connectorKey: "discord", externalUserId: user, displayName: "Dee" });
    await syncPlatformAccess(db, env, new Date(), { memberId: redemption.member.id });
    await asDomain(creator, (ctx) => expireSubscription(ctx, redemption.subscription.id), { system: true });
    await syncPlatformAccess(db, env, new Date(), { memberId: redemption.member.id });
    assert.deepEqual(fake.discordMembers(guild.id).find((m) => m.user === user)?.roles, [bronze], "in the server with the role still owed");
  });

  it("posts joins, removals and a refused role change to the log channel; the refusal leaves the grant to its retries [claim discord.settings.log_channel_id]", async () => {
    const channel = snowflake(500000000000000000n);
    const { creator, guild, roles, user, redemption, env, db, fake, installation } = await granted({
      removal_behaviour: "remove_roles",
      log_channel_id: channel,
    });
    assert.deepEqual((await posted(installation.id, channel)).sort(), [`<@${user}> was given Gold.`, `<@${user}> was given Silver.`]);

    // Someone drags Silver above the bot's role: taking it is refused, and said once in the log.
    fake.setDiscordRole(guild.id, roles[1]!, { position: 20 });
    await asDomain(creator, (ctx) => expireSubscription(ctx, redemption.subscription.id), { system: true });
    await syncPlatformAccess(db, env, new Date(), { memberId: redemption.member.id });
    const lines = await posted(installation.id, channel);
    assert.equal(lines.length, 2, lines.join("\n"));
    assert.ok(lines.includes(`<@${user}> lost Gold.`), lines.join("\n"));
    assert.ok(
      lines.some((l) => l.startsWith(`Could not take Silver from <@${user}>: `)),
      lines.join("\n"),
    );
    const silver = await db("access_grants")
      .where({ member_id: redemption.member.id, resource_id: (await db("resources").where({ platform_ref: roles[1] }).first()).id })
      .first();
    assert.equal(silver.platform_synced_at, null, "the refused removal waits for its retry");
    assert.equal(silver.platform_attempts, 1);

    // A retry refused again is not posted again.
    await syncPlatformAccess(db, env, new Date(Date.now() + 3_600_000), { memberId: redemption.member.id });
    const logged = await db("bot_messages").where({ installation_id: installation.id, purpose: "log" }).count({ n: "*" }).first();
    assert.equal(Number(logged!.n), 4, "two given, one lost, one refusal");
  });
});
