// The drivers against the local fake platform: each call in the platform's real HTTP shape (the
// fake records what it received), and every refusal mapped to a PlatformError.
import assert from "node:assert/strict";
import { startFakePlatform, type FakePlatform } from "../../../src/simulators/platforms/fake-platform.ts";
import { telegramDriver } from "../../../src/modules/connectors/drivers/telegram.ts";
import { discordDriver } from "../../../src/modules/connectors/drivers/discord.ts";
import { PlatformError } from "../../../src/modules/connectors/drivers/driver.ts";
import { inviteLinkExpiry } from "../../../src/modules/connectors/invite-links.ts";
import { driverFor } from "../../../src/modules/connectors/drivers/index.ts";
import { fakePlatformEndpoints, openPlatforms } from "../../../src/outside/platforms.ts";
import { loadConfig } from "../../../src/config.ts";

const TOKEN = `123456789:${"x".repeat(35)}`;

async function rejectsWith(promise: Promise<unknown>, kind: string, field?: string | null) {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof PlatformError, String(err));
    assert.equal(err.kind, kind, err.message);
    if (field !== undefined) assert.equal(err.field, field);
    return true;
  });
}

describe("connector drivers against the fake platform", () => {
  let fake: FakePlatform;
  beforeEach(async () => {
    fake = await startFakePlatform();
    fake.addTelegramBot(TOKEN, { id: 123456789, username: "owls_bot" });
  });
  afterEach(() => fake.close());
  const telegram = () => telegramDriver({ apiUrl: fake.url, timeoutMs: 2_000 });
  const discord = (application = fake.discordApplication) => discordDriver({ apiUrl: fake.url, timeoutMs: 2_000, application });

  describe("Telegram", () => {
    it("verifies a token with getMe: the bot's id, username and t.me address", async () => {
      assert.deepEqual(await telegram().verify({ fields: { bot_token: TOKEN }, oauth: null }), {
        accountId: "123456789",
        accountName: "owls_bot",
        botUrl: "https://t.me/owls_bot",
      });
      assert.deepEqual(fake.calls, [{ platform: "telegram", method: "POST", name: "getMe", bot: "123456789", params: {} }]);
    });

    it("refuses an unknown token as unauthorized, naming fields.bot_token", async () => {
      await rejectsWith(telegram().verify({ fields: { bot_token: `987654321:${"y".repeat(35)}` }, oauth: null }), "unauthorized", "fields.bot_token");
    });

    it("creates a single-use invite link, revokes it, removes (ban, then unban) or bans a member, sends a message", async () => {
      const session = telegram().session({ fields: { bot_token: TOKEN }, accountId: "123456789" });
      const expiry = inviteLinkExpiry(new Date("2026-11-28T10:00:00Z"));
      const link = await session.createInviteLink("-1001234567890", expiry);
      assert.match(link.url, /^https:\/\/t\.me\/\+/);
      await session.revokeInviteLink("-1001234567890", link.url);
      await session.removeMember("-1001234567890", "42");
      await session.removeMember("-1001234567890", "43", { ban: true });
      await session.sendMessage("42", "Welcome");
      assert.deepEqual(
        fake.calls.map((c) => [c.name, c.params]),
        [
          ["createChatInviteLink", { chat_id: "-1001234567890", member_limit: 1, expire_date: Date.parse("2026-11-29T10:00:00Z") / 1000 }],
          ["revokeChatInviteLink", { chat_id: "-1001234567890", invite_link: link.url }],
          ["banChatMember", { chat_id: "-1001234567890", user_id: 42 }],
          ["unbanChatMember", { chat_id: "-1001234567890", user_id: 42, only_if_banned: true }],
          ["banChatMember", { chat_id: "-1001234567890", user_id: 43 }],
          ["sendMessage", { chat_id: "42", text: "Welcome" }],
        ],
      );
    });

    it("maps a refused call (chat not found) to refused and roles to unsupported", async () => {
      const session = telegram().session({ fields: { bot_token: TOKEN }, accountId: "123456789" });
      await rejectsWith(session.createInviteLink("no such chat", inviteLinkExpiry(new Date())), "refused");
      await rejectsWith(session.addRole("42", "1"), "unsupported");
      await rejectsWith(session.removeRole("42", "1"), "unsupported");
    });

    it("probes: getMe, then getChatMember of the bot in each place; a removed, demoted or unknown chat and a revoked token are verdicts", async () => {
      const session = telegram().session({ fields: { bot_token: TOKEN }, accountId: "123456789" });
      assert.deepEqual(await session.probe(["-1001", "-1002"]), {
        account: { ok: true },
        places: [
          { place: "-1001", ok: true },
          { place: "-1002", ok: true },
        ],
      });
      assert.deepEqual(
        fake.calls.map((c) => [c.name, c.params]),
        [
          ["getMe", {}],
          ["getChatMember", { chat_id: "-1001", user_id: 123456789 }],
          ["getChatMember", { chat_id: "-1002", user_id: 123456789 }],
        ],
      );
      fake.setTelegramBotStatus(123456789, "-1001", "kicked");
      fake.setTelegramBotStatus(123456789, "-1002", "member");
      assert.deepEqual((await session.probe(["-1001", "-1002", "no such chat"])).places, [
        { place: "-1001", ok: false, reason: "Forbidden: bot was kicked from the supergroup chat" },
        { place: "-1002", ok: false, reason: "the bot is not an administrator of the chat" },
        { place: "no such chat", ok: false, reason: "Bad Request: chat not found" },
      ]);
      fake.revokeTelegramToken(TOKEN);
      const reason = "Telegram refused the bot token (revoked or replaced in @BotFather)";
      assert.deepEqual(await session.probe(["-1001"]), { account: { ok: false, reason }, places: [{ place: "-1001", ok: false, reason }] });
      await rejectsWith(
        telegramDriver({ apiUrl: "http://127.0.0.1:9", timeoutMs: 1_000 })
          .session({ fields: { bot_token: TOKEN }, accountId: null })
          .probe([]),
        "unreachable",
      );
    });

    it("answers unreachable when the platform is slow or gone", async () => {
      fake.delay(500);
      await rejectsWith(telegramDriver({ apiUrl: fake.url, timeoutMs: 100 }).verify({ fields: { bot_token: TOKEN }, oauth: null }), "unreachable");
      await rejectsWith(
        telegramDriver({ apiUrl: "http://127.0.0.1:9", timeoutMs: 1_000 }).verify({ fields: { bot_token: TOKEN }, oauth: null }),
        "unreachable",
      );
    });
  });

  describe("Discord", () => {
    it("exchanges the OAuth code for the guild and checks the bot with GET /users/@me", async () => {
      fake.addDiscordAuthorization("code-1", { id: "223456789012345678", name: "Night Owls" });
      const account = await discord().verify({ fields: {}, oauth: { code: "code-1", redirect_uri: "https://app.example.test/cb" } });
      assert.deepEqual(account, { accountId: "223456789012345678", accountName: "Night Owls", botUrl: null, portalEntry: true });
      assert.deepEqual(
        fake.calls.map((c) => [c.method, c.name]),
        [
          ["POST", "/oauth2/token"],
          ["GET", "/users/@me"],
        ],
      );
      assert.equal(fake.calls[0]!.params.grant_type, "authorization_code");
      assert.equal(fake.calls[0]!.params.client_id, fake.discordApplication.clientId);
      // Single use, as Discord's are.
      await rejectsWith(
        discord().verify({ fields: {}, oauth: { code: "code-1", redirect_uri: "https://app.example.test/cb" } }),
        "unauthorized",
        "oauth.code",
      );
    });

    it("refuses without an OAuth result, with a wrong application, and without a configured application", async () => {
      await rejectsWith(discord().verify({ fields: {}, oauth: null }), "unauthorized", "oauth.code");
      fake.addDiscordAuthorization("code-2", { id: "1", name: "x" });
      await rejectsWith(
        discord({ ...fake.discordApplication, clientSecret: "wrong" }).verify({
          fields: {},
          oauth: { code: "code-2", redirect_uri: "https://a.test/cb" },
        }),
        "unauthorized",
        "oauth.code",
      );
      await rejectsWith(
        discord(null as never).verify({ fields: {}, oauth: { code: "code-2", redirect_uri: "https://a.test/cb" } }),
        "not_configured",
      );
    });

    it("adds and removes roles, bans and kicks in the installation's guild, makes and revokes invites, sends a member a direct message", async () => {
      const session = discord().session({ fields: {}, accountId: "223456789012345678" });
      await session.addRole("334455667788990011", "445566778899001122");
      await session.removeRole("334455667788990011", "445566778899001122");
      await session.removeMember("ignored", "334455667788990011", { ban: true });
      await session.removeMember("ignored", "334455667788990012");
      const invite = await session.createInviteLink("556677889900112233", { expiresAt: new Date(Date.now() + 3_600_000), seconds: 3_600 });
      assert.match(invite.url, /^https:\/\/discord\.gg\/[A-Za-z0-9_-]+$/);
      await session.revokeInviteLink("556677889900112233", invite.url);
      await session.sendMessage("556677889900112234", "Hello");
      const code = invite.url.slice(invite.url.lastIndexOf("/") + 1);
      assert.deepEqual(
        fake.calls.map((c) => `${c.method} ${c.name}`),
        [
          "PUT /guilds/223456789012345678/members/334455667788990011/roles/445566778899001122",
          "DELETE /guilds/223456789012345678/members/334455667788990011/roles/445566778899001122",
          "PUT /guilds/223456789012345678/bans/334455667788990011",
          "DELETE /guilds/223456789012345678/members/334455667788990012",
          "POST /channels/556677889900112233/invites",
          `DELETE /invites/${code}`,
          "POST /users/@me/channels",
          "POST /channels/9556677889900112234/messages",
        ],
      );
      assert.deepEqual(fake.calls[4]!.params, { max_uses: 1, unique: true, max_age: 3_600 });
    });

    it("probes: the bot still in the guild, each channel there; a removed bot or a channel elsewhere or deleted fails", async () => {
      const guild = "223456789012345678";
      fake.setDiscordChannel("556677889900112233", guild);
      fake.setDiscordChannel("556677889900112234", "999999999999999999");
      const session = discord().session({ fields: {}, accountId: guild });
      assert.deepEqual(await session.probe(["556677889900112233", "556677889900112234", "556677889900112235"]), {
        account: { ok: true },
        places: [
          { place: "556677889900112233", ok: true },
          { place: "556677889900112234", ok: false, reason: "the channel is not in the installation's server" },
          { place: "556677889900112235", ok: false, reason: "the channel no longer exists or the bot cannot see it" },
        ],
      });
      assert.deepEqual(
        fake.calls.map((c) => `${c.method} ${c.name}`),
        [`GET /guilds/${guild}`, "GET /channels/556677889900112233", "GET /channels/556677889900112234", "GET /channels/556677889900112235"],
      );
      fake.removeDiscordBot(guild);
      const reason = "the bot is no longer in the Discord server";
      assert.deepEqual(await session.probe(["556677889900112233"]), {
        account: { ok: false, reason },
        places: [{ place: "556677889900112233", ok: false, reason }],
      });
      const refused = await discord({ ...fake.discordApplication, botToken: "wrong" })
        .session({ fields: {}, accountId: "1" })
        .probe([]);
      assert.deepEqual(refused, { account: { ok: false, reason: "Discord refused the application's bot token" }, places: [] });
    });

    it("maps a bad bot token to unauthorized and an unknown route to refused", async () => {
      const session = discord({ ...fake.discordApplication, botToken: "wrong" }).session({ fields: {}, accountId: "1" });
      await rejectsWith(session.addRole("2", "3"), "unauthorized");
      const good = discord().session({ fields: {}, accountId: "1" });
      await rejectsWith(good.sendMessage("not-a-channel", "x"), "refused");
    });
  });

  it("has a driver for each loaded package, and none for a connector without one", () => {
    const endpoints = fakePlatformEndpoints(fake);
    assert.equal(driverFor("telegram", endpoints)?.key, "telegram");
    assert.equal(driverFor("discord", endpoints)?.key, "discord");
    assert.equal(driverFor("slack", endpoints), undefined);
  });

  it("an embedded start with no platform URL is simulated on loopback (any well-formed token works, a restarted one still places each server's channels); a set URL is used as is", async () => {
    const simulated = await openPlatforms(loadConfig({}).platforms);
    try {
      assert.match(simulated.endpoints.telegramApiUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
      const driver = telegramDriver({ apiUrl: simulated.endpoints.telegramApiUrl, timeoutMs: 2_000 });
      assert.equal((await driver.verify({ fields: { bot_token: TOKEN }, oauth: null })).botUrl, "https://t.me/sb_demo_123456789_bot");
      const guild = await discordDriver({
        apiUrl: simulated.endpoints.discordApiUrl,
        timeoutMs: 2_000,
        application: simulated.endpoints.discord,
      }).verify({
        fields: {},
        oauth: { code: "anything", redirect_uri: "https://a.test/cb" },
      });
      assert.equal(guild.accountName, "Simulated server");
    } finally {
      await simulated.close();
    }
    // A restart's new simulation saw no server added: each installation's channels are still its own.
    const restarted = await openPlatforms(loadConfig({}).platforms);
    try {
      const { discordApiUrl, discord: application } = restarted.endpoints;
      const driver = discordDriver({ apiUrl: discordApiUrl, timeoutMs: 2_000, application });
      for (const server of ["223456789012345678", "323456789012345678"])
        assert.deepEqual(await driver.session({ fields: {}, accountId: server }).probe(["556677889900112299"]), {
          account: { ok: true },
          places: [{ place: "556677889900112299", ok: true }],
        });
    } finally {
      await restarted.close();
    }
    const production = loadConfig({ DATABASE_URL: "postgres://db.example/sb" }).platforms;
    assert.equal(production.simulated, false);
    assert.equal(production.telegramApiUrl, "https://api.telegram.org");
    assert.equal(production.discordApiUrl, "https://discord.com/api/v10");
    const chosen = loadConfig({ TELEGRAM_API_URL: "http://127.0.0.1:7000/" }).platforms;
    assert.equal(chosen.simulated, false);
    assert.equal(chosen.telegramApiUrl, "http://127.0.0.1:7000");
    assert.throws(() => loadConfig({ DISCORD_CLIENT_ID: "1" }), /set together/);
    assert.throws(() => loadConfig({ PLATFORM_TIMEOUT_MS: "5" }), /PLATFORM_TIMEOUT_MS/);
  });
});
