// The chats a Telegram bot administers (list_connector_chats): learned from the my_chat_member
// updates Telegram posts to the installation's webhook (made administrator: listed; demoted, left,
// removed: not), never from another installation's bot or a forged update; the list is paged,
// scoped to the team and gated by project-connector:view; and the simulated Telegram page's
// "Add the bot to a chat" form fills it as Telegram would.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { updatesSecret } from "../../../src/modules/connectors/bot/session.ts";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { createTestCreator, tokenFor } from "../../helpers/fixtures.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { newDiscordAuthorization, newTelegramBot, testPlatform } from "../../helpers/platforms.ts";
import { installPath, installTelegram, newProject } from "./support.ts";

const chatsPath = (project: string, key = "telegram") => `${installPath(project, key)}/chats`;
const newChatId = () => `-100${randomInt(1_000_000_000, 9_999_999_999)}`;

interface Standing {
  chat: string;
  title?: string;
  type?: string;
  status: string;
  /** The bot whose standing changed (the installation's own by default). */
  botId: number;
  /** Telegram's date of the change, in seconds (now by default). */
  date?: number;
  rights?: { can_invite_users?: boolean; can_restrict_members?: boolean };
}

/** Posts Telegram's my_chat_member update to the installation's webhook, with its secret token unless `secret` says. */
function postStanding(apiUrl: string, installationId: string, standing: Standing, secret?: string | null): Promise<Response> {
  const bot = { id: standing.botId, is_bot: true, first_name: "bot", username: `b${standing.botId}_bot` };
  const update = {
    update_id: randomInt(1, 1e9),
    my_chat_member: {
      chat: { id: Number(standing.chat), type: standing.type ?? "supergroup", title: standing.title ?? "Owls" },
      from: { id: 7, is_bot: false, first_name: "Admin" },
      date: standing.date ?? Math.floor(Date.now() / 1000),
      old_chat_member: { user: bot, status: "left" },
      new_chat_member: { user: bot, status: standing.status, ...(standing.rights ?? {}) },
    },
  };
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (secret !== null) headers["x-telegram-bot-api-secret-token"] = secret ?? updatesSecret(TEST_APP_KEY, installationId);
  return fetch(`${apiUrl}/connectors/telegram/${installationId}/updates`, { method: "POST", headers, body: JSON.stringify(update) });
}

describe("the chats a Telegram bot administers", function () {
  this.timeout(60_000);
  const suite = useApiWithCreator({ creator: { label: "bot-chats", tier: "growth" } });

  async function telegramProject() {
    const project = await newProject(suite.creator);
    const { installation, bot } = await installTelegram(suite.client, project);
    const standing = async (s: Omit<Standing, "botId"> & { botId?: number }) => {
      const res = await postStanding(suite.api.url, installation.id, { botId: bot.id, ...s });
      assert.equal(res.status, 200);
    };
    return { project, installation, bot, standing };
  }
  const listed = async (project: string, query = "") => {
    const res = await suite.client.get(`${chatsPath(project)}${query}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };

  it("starts empty, lists a chat once the bot is made administrator (or owner), and drops it when demoted, removed or left [claim telegram.install.add_to_places telegram.resource_kinds.group]", async () => {
    const { project, standing } = await telegramProject();
    assert.deepEqual((await listed(project)).data, [], "Telegram lists no chats at install");
    const [group, channel, owned] = [newChatId(), newChatId(), newChatId()];
    await standing({ chat: group, title: "A Owls VIP", status: "administrator", rights: { can_invite_users: true, can_restrict_members: false } });
    await standing({ chat: channel, title: "B Owls news", type: "channel", status: "administrator", rights: { can_invite_users: true } });
    await standing({ chat: owned, title: "C Owned", status: "creator" });
    await standing({ chat: newChatId(), status: "member" });
    const before = Date.now();
    const page = await listed(project, "?sort_by=title&sort_direction=asc");
    assert.deepEqual(
      page.data.map((c: any) => [c.chat_id, c.title, c.type, c.can_invite_users, c.can_restrict_members, c.resource_id]),
      [
        [group, "A Owls VIP", "supergroup", true, false, null],
        [channel, "B Owls news", "channel", true, false, null],
        [owned, "C Owned", "supergroup", true, true, null],
      ],
    );
    assert.ok(page.data.every((c: any) => Date.parse(c.added_at) <= before));
    // The resource kind each takes, and whether the bot can both let members in and take them out.
    assert.deepEqual(
      page.data.map((c: any) => [c.kind, c.manageable, c.unmanageable_reason]),
      [
        ["group", false, "the bot may not remove members there"],
        ["channel", false, "the bot may not remove members there"],
        ["group", true, null],
      ],
    );

    await standing({ chat: group, title: "A Owls VIP", status: "member" });
    await standing({ chat: channel, title: "B Owls news", type: "channel", status: "kicked" });
    await standing({ chat: owned, title: "C Owned", status: "left" });
    assert.deepEqual((await listed(project)).data, []);
    await standing({ chat: group, title: "A Owls VIP 2", status: "administrator", rights: { can_invite_users: true, can_restrict_members: true } });
    assert.deepEqual(
      (await listed(project)).data.map((c: any) => [c.chat_id, c.title, c.can_restrict_members]),
      [[group, "A Owls VIP 2", true]],
    );

    const { db } = await testDatabase();
    const entries = await db("activity_log").where({ project_id: project }).whereIn("event", ["connector_chat_added", "connector_chat_removed"]);
    assert.deepEqual(entries.map((e) => e.event).sort(), [
      "connector_chat_added",
      "connector_chat_added",
      "connector_chat_added",
      "connector_chat_added",
      "connector_chat_removed",
      "connector_chat_removed",
      "connector_chat_removed",
    ]);
  });

  it("ignores a change older than the one applied (Telegram delivers late), and a private chat", async () => {
    const { project, standing } = await telegramProject();
    const chat = newChatId();
    const now = Math.floor(Date.now() / 1000);
    await standing({ chat, status: "administrator", date: now });
    await standing({ chat, status: "left", date: now - 60 });
    assert.deepEqual(
      (await listed(project)).data.map((c: any) => c.chat_id),
      [chat],
    );
    await standing({ chat: String(randomInt(1e6, 1e7)), type: "private", status: "administrator" });
    assert.equal((await listed(project)).meta.total, 1);
  });

  it("keeps each installation's chats its own: another project's bot, another bot named in the update, a forged update", async () => {
    const a = await telegramProject();
    const b = await telegramProject();
    const chat = newChatId();
    await b.standing({ chat, status: "administrator" });
    // An update on A's webhook about B's bot (not A's own standing) says nothing of A's chats.
    await a.standing({ chat: newChatId(), status: "administrator", botId: b.bot.id });
    assert.deepEqual((await listed(a.project)).data, []);
    assert.deepEqual(
      (await listed(b.project)).data.map((c: any) => c.chat_id),
      [chat],
    );

    for (const secret of [null, "forged", updatesSecret(TEST_APP_KEY, b.installation.id)]) {
      const res = await postStanding(suite.api.url, a.installation.id, { chat: newChatId(), status: "administrator", botId: a.bot.id }, secret);
      expectError({ status: res.status, body: await res.json(), headers: res.headers } as any, 404, "RESOURCE_NOT_FOUND");
    }
    assert.deepEqual((await listed(a.project)).data, [], "a forged update lists nothing");
  });

  it("lists only the current bot's chats once the installation takes a new bot token", async () => {
    const { project, standing } = await telegramProject();
    await standing({ chat: newChatId(), status: "administrator" });
    assert.equal((await listed(project)).meta.total, 1);
    const next = await newTelegramBot();
    const res = await suite.client.patch(installPath(project), { fields: { bot_token: next.token } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual((await listed(project)).data, []);
  });

  it("pages the list and names the resource already gating a chat", async () => {
    const { project, standing } = await telegramProject();
    const chats = [newChatId(), newChatId(), newChatId()];
    for (const [i, chat] of chats.entries())
      await standing({ chat, title: `Chat ${i}`, status: "administrator", rights: { can_invite_users: true } });
    const made = await suite.client.post(`/v1/projects/${project}/resources`, { kind: "channel", title: "VIP", platform_ref: chats[1] });
    assert.equal(made.status, 201, JSON.stringify(made.body));

    const first = await listed(project, "?per_page=2&sort_by=title&sort_direction=asc");
    assert.deepEqual(first.meta, { current_page: 1, from: 1, last_page: 2, per_page: 2, to: 2, total: 3 });
    assert.deepEqual(
      first.data.map((c: any) => [c.title, c.resource_id]),
      [
        ["Chat 0", null],
        ["Chat 1", made.body.data.id],
      ],
    );
    assert.ok(first.links.next.includes("page=2"));
    const second = await listed(project, "?per_page=2&page=2&sort_by=title&sort_direction=asc");
    assert.deepEqual(
      second.data.map((c: any) => c.title),
      ["Chat 2"],
    );
    expectError(await suite.client.get(`${chatsPath(project)}?per_page=0`), 422, "VALIDATION_FAILED");
  });

  it("answers 404 to another team and to a project without the connector, 403 without project-connector:view; Discord lists its server's places", async () => {
    const { project } = await telegramProject();
    const other = new ApiClient(suite.api.url, (await createTestCreator({ label: "bot-chats-other" })).token);
    expectError(await other.get(chatsPath(project)), 404, "RESOURCE_NOT_FOUND");
    const without = await tokenFor(suite.creator, ["project-connector:view-any", "project-connector:update"]);
    const refused = expectError(await suite.client.get(chatsPath(project), { token: without.token }), 403, "TOKEN_MISSING_ABILITY");
    assert.equal(refused.context.required_ability, "project-connector:view");
    const viewer = await tokenFor(suite.creator, ["project-connector:view"]);
    assert.equal((await suite.client.get(chatsPath(project), { token: viewer.token })).status, 200);

    const bare = await newProject(suite.creator);
    expectError(await suite.client.get(chatsPath(bare)), 404, "CONNECTOR_NOT_INSTALLED");
    const { code } = await newDiscordAuthorization();
    const installed = await suite.client.post(installPath(bare, "discord"), { oauth: { code, redirect_uri: "https://app.example.test/cb" } });
    assert.equal(installed.status, 201, JSON.stringify(installed.body));
    // Discord's places are asked of Discord (discord-install.test.ts), so its list answers too.
    assert.equal((await suite.client.get(chatsPath(bare, "discord"))).status, 200);
  });

  it("fills from the simulated Telegram page: the form adds the bot to a chat, and the chat is listed", async () => {
    const { project, bot } = await telegramProject();
    const fake = await testPlatform();
    const form = (fields: Record<string, string>) =>
      fetch(`${fake.url}/_sim/telegram/add-chat`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: fake.url },
        body: new URLSearchParams({ bot: String(bot.id), ...fields }).toString(),
      });
    const added = await form({ title: "Night Owls VIP" });
    assert.equal(added.status, 303);
    assert.match(decodeURIComponent(added.headers.get("location")!), /administrator of supergroup "Night Owls VIP" \(-100[0-9]{10}\)\./);
    const given = newChatId();
    assert.equal((await form({ title: "Owls news", chat_id: given, type: "channel" })).status, 303);

    const { data } = await listed(project, "?sort_by=title&sort_direction=asc");
    assert.equal(data.length, 2);
    assert.match(data[0].chat_id, /^-100[0-9]{10}$/);
    assert.deepEqual(
      data.map((c: any) => [c.title, c.type, c.can_invite_users, c.can_restrict_members]),
      [
        ["Night Owls VIP", "supergroup", true, true],
        ["Owls news", "channel", true, true],
      ],
    );
    assert.equal(data[1].chat_id, given);

    const res = await fetch(`${fake.url}/bot${bot.token}/getChat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ chat_id: data[0].chat_id }),
    });
    assert.deepEqual(((await res.json()) as any).result, { id: Number(data[0].chat_id), type: "supergroup", title: "Night Owls VIP" });
    const refused = await form({ title: "" });
    assert.equal(refused.status, 400);
  });
});
