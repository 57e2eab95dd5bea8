// Installing Discord and gating its places (issue 45, "Install"): the catalog card's authorize_url
// (the consent screen adding this deployment's application, with the scopes and the permissions the
// bot uses, no redirect_uri or state), the server's text channels and roles listed with whether the
// bot can manage each (list_connector_chats), and publishing refused while a plan grants a role the
// bot's role sits below, naming the role and the fix; accepted once the role is moved below it.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { startApi } from "../../helpers/server.ts";
import { newDiscordAuthorization, testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { seedPlan } from "../subscriptions/commerce.ts";
import { setUpPaymentMethod } from "../resources/support.ts";
import { installPath, newProject } from "./support.ts";

/** Create Instant Invite, Kick, Ban, Manage Channels, View Channel, Send Messages, Manage Roles. */
const BOT_PERMISSIONS = String(1 + 2 + 4 + 16 + 1024 + 2048 + 2 ** 28);

describe("Discord install: authorize_url, the server's places, the role hierarchy at publish", function () {
  this.timeout(60_000);
  const suite = useApiWithCreator({ creator: { label: "discord-install", tier: "growth", projects: 2 } });

  /** A project with Discord installed through the consent screen's code: its id and server. */
  async function discordProject(projectId?: string) {
    const project = projectId ?? (await newProject(suite.creator));
    const { code, guild } = await newDiscordAuthorization();
    const res = await suite.client.post(installPath(project, "discord"), { oauth: { code, redirect_uri: "https://dashboard.test/cb" } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return { project, guild };
  }

  it("gives Discord's card the consent screen of the deployment's application, Telegram's none [claim discord.install.authorize]", async () => {
    const fake = await testPlatform();
    const cards = (await suite.client.get("/v1/connectors?per_page=100")).body.data as any[];
    const discord = cards.find((c) => c.key === "discord");
    const url = new URL(discord.install.authorize_url);
    assert.equal(`${url.origin}${url.pathname}`, `${fake.url}/oauth2/authorize`);
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      client_id: fake.discordApplication.clientId,
      response_type: "code",
      scope: "bot applications.commands",
      permissions: BOT_PERMISSIONS,
    });
    assert.equal(cards.find((c) => c.key === "telegram").install.authorize_url, null);
    // A deployment with no Discord application offers no consent screen.
    const bare = await startApi({ platforms: { ...(await testPlatformEndpoints()), discord: null } });
    try {
      const listed = (await new ApiClient(bare.url, suite.creator.token).get("/v1/connectors?per_page=100")).body.data as any[];
      assert.equal(listed.find((c) => c.key === "discord").install.authorize_url, null);
    } finally {
      await bare.close();
    }
  });

  it("lists the server's text channels and roles, each with whether the bot can manage it", async () => {
    const { project, guild } = await discordProject();
    const fake = await testPlatform();
    const above = String(500_000_000_000_000_000n + BigInt(randomInt(1, 2 ** 40)));
    fake.setDiscordRole(guild.id, above, { position: 20 });
    const res = await suite.client.get(`${installPath(project, "discord")}/chats?sort_by=title&sort_direction=asc&per_page=100`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const rows = res.body.data as any[];
    const summary = rows.map((r) => [r.title, r.type, r.kind, r.manageable]);
    assert.deepEqual(summary, [
      ["announcements", "text_channel", "channel", true],
      ["general", "text_channel", "channel", true],
      ["members-lounge", "text_channel", "channel", true],
      [`role-${above}`, "role", "role", false],
      ["Supporter", "role", "role", true],
      ["VIP", "role", "role", true],
      ["vip-lounge", "text_channel", "channel", true],
    ]);
    // @everyone, the bot's own (managed) role, the category and the voice channel are not places to gate.
    const high = rows.find((r) => r.chat_id === above);
    assert.equal(high.unmanageable_reason, "the bot's role is not above this role");
    assert.equal(high.can_invite_users, false);
    const general = rows.find((r) => r.title === "general");
    assert.deepEqual([general.can_invite_users, general.can_restrict_members, general.unmanageable_reason], [true, true, null]);
    // The place's id is Discord's snowflake: added_at is the time it encodes.
    assert.equal(general.added_at, new Date(Number((BigInt(general.chat_id) >> 22n) + 1420070400000n)).toISOString());
    assert.equal(res.body.meta.total, 7);
    const page = await suite.client.get(`${installPath(project, "discord")}/chats?sort_by=title&sort_direction=asc&per_page=2&page=2`);
    assert.deepEqual(
      page.body.data.map((r: any) => r.title),
      ["members-lounge", `role-${above}`],
    );
  });

  it("refuses to publish a plan granting a role above the bot's, naming the role and the fix; publishes once it is moved below", async () => {
    const projectId = suite.creator.projectIds[1]!;
    const { guild } = await discordProject(projectId);
    const role = String(600_000_000_000_000_000n + BigInt(randomInt(1, 2 ** 40)));
    const fake = await testPlatform();
    fake.setDiscordRole(guild.id, role, { position: 20 });
    const { planId } = await seedPlan(suite.creator, {
      projectIndex: 1,
      connector: "discord",
      status: "draft",
      resources: [{ mode: "role", title: "Gold", platformRef: role }],
    });
    await setUpPaymentMethod(suite.creator, projectId, { currencies: ["USD"], billing_cycles: ["month"] });
    const publish = () => suite.client.post(`/v1/projects/${projectId}/plans/${planId}/publish`);
    const refused = expectError(await publish(), 422, "VALIDATION_FAILED");
    assert.equal(refused.context.reason, "role_not_manageable");
    assert.equal(refused.context.role_id, role);
    assert.match(refused.message, /Gold/);
    assert.match(refused.message, /Drag the SubBridge role above Gold in Server Settings → Roles, then publish again\./);
    assert.equal((await suite.client.get(`/v1/projects/${projectId}/plans/${planId}`)).body.data.status, "draft");

    fake.setDiscordRole(guild.id, role, { position: 5 });
    const published = await publish();
    assert.equal(published.status, 200, JSON.stringify(published.body));
    assert.equal(published.body.data.status, "published");
  });

  it("refuses to publish when Discord cannot be reached rather than publishing unchecked", async () => {
    const projectId = suite.creator.projectIds[0]!;
    await discordProject(projectId);
    const { planId } = await seedPlan(suite.creator, {
      connector: "discord",
      status: "draft",
      resources: [{ mode: "role", title: "Silver", platformRef: String(700_000_000_000_000_000n + BigInt(randomInt(1, 2 ** 40))) }],
    });
    await setUpPaymentMethod(suite.creator, projectId, { currencies: ["USD"], billing_cycles: ["month"] });
    // The same database behind an API whose Discord is a closed port.
    const down = await startApi({ platforms: { ...(await testPlatformEndpoints()), discordApiUrl: "http://127.0.0.1:9/api/v10", timeoutMs: 2000 } });
    try {
      const client = new ApiClient(down.url, suite.creator.token);
      const refused = expectError(await client.post(`/v1/projects/${projectId}/plans/${planId}/publish`), 422, "VALIDATION_FAILED");
      assert.equal(refused.context.reason, "platform_unreachable");
    } finally {
      await down.close();
    }
    assert.equal((await suite.client.get(`/v1/projects/${projectId}/plans/${planId}`)).body.data.status, "draft");
  });
});
