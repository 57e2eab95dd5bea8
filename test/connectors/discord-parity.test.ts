// Discord as complete as Telegram (issue 45's parity table), the rows no other file covers whole:
// a member on Discord hears from the bot by direct message (the team's support reply to their
// /support message, and the notice that their access ended), and a subscription cancelled at the
// period's end keeps its role until then and loses it when the period ends.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { syncPlatformAccess } from "../../src/modules/connectors/access-sync.ts";
import { scheduledJobs as subscriptionJobs } from "../../src/modules/subscriptions/jobs.ts";
import { sendDueBotMessages } from "../../src/workers/bot-messages/worker.ts";
import { testDatabase, testKv } from "../helpers/backends.ts";
import { newDiscordAuthorization, testPlatform, testPlatformEndpoints } from "../helpers/platforms.ts";
import { repositoryConnectorRegistry, TEST_APP_KEY, testLogger } from "../helpers/server.ts";
import { useApiWithCreator } from "../helpers/suite.ts";
import { codesFor, DAY, redeem, runJob, seedPlan } from "../modules/subscriptions/commerce.ts";
import { installPath, newProject } from "../modules/connectors/support.ts";

const snowflake = (base: bigint) => String(base + BigInt(randomInt(1, 1e9)));

describe("Discord parity: direct messages and the period's end", function () {
  this.timeout(90_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });

  /** A project with Discord, a monthly plan granting a role, and a member on Discord who redeemed it and holds the role. */
  async function memberWithRole() {
    const project = await newProject(suite.creator);
    const { code: oauth, guild } = await newDiscordAuthorization();
    const install = await suite.client.post(installPath(project, "discord"), {
      oauth: { code: oauth, redirect_uri: "https://dashboard.test/discord" },
    });
    assert.equal(install.status, 201, JSON.stringify(install.body));
    const creator = { ...suite.creator, projectIds: [project] };
    const role = snowflake(220000000000000000n);
    const plan = await seedPlan(creator, { connector: "discord", cycle: "month", resources: [{ mode: "role", title: "Gold", platformRef: role }] });
    const [code] = await codesFor(creator, plan);
    const user = snowflake(410000000000000000n);
    const redemption = await redeem(creator, project, code!, { connectorKey: "discord", externalUserId: user, displayName: "Dee" });
    const { db } = await testDatabase();
    const env = { platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY };
    await syncPlatformAccess(db, env, new Date(), { memberId: redemption.member.id });
    const fake = await testPlatform();
    const roles = () => fake.discordMembers(guild.id).find((m) => m.user === user)?.roles ?? [];
    assert.deepEqual(roles(), [role]);
    return { project, installation: install.body.data as { id: string }, guild, user, role, roles, redemption, env, db, fake };
  }

  /** Runs the bot message worker for the installation a few paced rounds ahead; answers the DMs the user got meanwhile. */
  async function directMessages(installationId: string, user: string, from: Date): Promise<string[]> {
    const { db } = await testDatabase();
    const fake = await testPlatform();
    const before = fake.calls.length;
    const env = { connectors: repositoryConnectorRegistry(), platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY };
    for (let round = 1; round <= 3; round++)
      await sendDueBotMessages({
        db,
        kv: await testKv(),
        env,
        logger: testLogger,
        now: new Date(from.getTime() + round * 5_000),
        installations: [installationId],
      });
    const dm = `/channels/9${user}/messages`;
    const opened = fake.calls.slice(before).some((c) => c.method === "POST" && c.name === "/users/@me/channels" && c.params.recipient_id === user);
    const sent = fake.calls.slice(before).filter((c) => c.method === "POST" && c.name === dm);
    assert.ok(!sent.length || opened, "a direct message goes to the DM channel Discord opened for the user");
    return sent.map((c) => String(c.params.content));
  }

  it("delivers the team's reply to a /support message, and the access-ended notice, by direct message [claim discord.capabilities.messaging discord.relay_modes.direct_message]", async () => {
    const { project, installation, guild, user, redemption, fake } = await memberWithRole();
    const asked = await fake.sendDiscordInteraction(`${suite.api.url}/connectors/discord/interactions`, {
      command: "support",
      options: { message: "The role did not show up" },
      guild_id: guild.id,
      user: { id: user, username: "dee", global_name: "Dee" },
    });
    assert.equal(asked.status, 200);
    const conversations = await suite.client.get(`/v1/projects/${project}/support/conversations`);
    const conversation = conversations.body.data.find((c: any) => c.member_id === redemption.member.id);
    assert.ok(conversation, JSON.stringify(conversations.body));
    const reply = await suite.client.post(`/v1/projects/${project}/support/conversations/${conversation.id}/messages`, {
      body: "It is there now: check the member list.",
    });
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    assert.ok((await directMessages(installation.id, user, new Date())).includes("It is there now: check the member list."));

    // The access ends (expired past its period, which queues the notice): it reaches them the same way.
    const later = new Date(Date.now() + 40 * DAY);
    await runJob(subscriptionJobs, "subscriptions.expire", later);
    const notices = await directMessages(installation.id, user, later);
    assert.ok(
      notices.some((text) => /has ended/.test(text)),
      JSON.stringify(notices),
    );
  });

  it("keeps the role of a subscription cancelled at the period's end until then, and takes it when the period ends", async () => {
    const { redemption, roles, role, env, db } = await memberWithRole();
    const cancelled = await suite.client.post(`/v1/subscriptions/${redemption.subscription.id}/cancel`, { at_period_end: true });
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    const endsAt = new Date(cancelled.body.data.ends_at ?? cancelled.body.data.current_period_end);
    assert.ok(endsAt.getTime() > Date.now() + 20 * DAY, JSON.stringify(cancelled.body.data));
    await runJob(subscriptionJobs, "subscriptions.expire", new Date(endsAt.getTime() - 60_000));
    await syncPlatformAccess(db, env, new Date(endsAt.getTime() - 60_000), { memberId: redemption.member.id });
    assert.deepEqual(roles(), [role], "still theirs the minute before the end");
    await runJob(subscriptionJobs, "subscriptions.expire", new Date(endsAt.getTime() + 60_000));
    await syncPlatformAccess(db, env, new Date(endsAt.getTime() + 60_000), { memberId: redemption.member.id });
    assert.deepEqual(roles(), [], "taken when the period ended");
  });
});
