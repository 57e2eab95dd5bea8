// The simulated Telegram's page (GET /_sim/telegram on the fake platform): a message sent from its
// form reaches the bot's webhook as Telegram's update with the secret-token header; the bot's
// answers show escaped, with their links; an invite link admits one member and the page shows them;
// a form posted from another site is refused.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startFakePlatform, type FakePlatform } from "../../../src/simulators/platforms/fake-platform.ts";

const TOKEN = `123456789:${"x".repeat(35)}`;

describe("the simulated Telegram's page", () => {
  let fake: FakePlatform;
  let hook: Server;
  const updates: { secret: string | undefined; update: any }[] = [];
  const bot = (method: string, params: Record<string, unknown>) =>
    fetch(`${fake.url}/bot${TOKEN}/${method}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(params),
    }).then((res) => res.json() as Promise<any>);
  const form = (action: string, fields: Record<string, string>, origin = fake.url) =>
    fetch(`${fake.url}/_sim/telegram/${action}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin },
      body: new URLSearchParams(fields).toString(),
    });
  const page = () => fetch(`${fake.url}/_sim/telegram`).then((res) => res.text());

  before(async () => {
    fake = await startFakePlatform();
    fake.addTelegramBot(TOKEN, { id: 123456789, username: "owls_bot" });
    hook = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        updates.push({ secret: req.headers["x-telegram-bot-api-secret-token"] as string | undefined, update: JSON.parse(body) });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, "127.0.0.1", resolve));
    await bot("setWebhook", { url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/updates`, secret_token: "s3cret" });
  });
  after(async () => {
    hook.close();
    await fake.close();
  });

  it("sends a message as a user, shows the bot's answers escaped with links, and lets one member join through an invite link", async () => {
    const sent = await form("send", { bot: "123456789", user_id: "42", first_name: "Ada", text: "/start hello" });
    assert.equal(sent.status, 303);
    assert.equal(updates.length, 1);
    assert.equal(updates[0]!.secret, "s3cret");
    assert.deepEqual(
      { chat: updates[0]!.update.message.chat, from: updates[0]!.update.message.from, text: updates[0]!.update.message.text },
      { chat: { id: 42, type: "private", first_name: "Ada" }, from: { is_bot: false, id: 42, first_name: "Ada" }, text: "/start hello" },
    );

    const { result } = await bot("createChatInviteLink", { chat_id: -100500, member_limit: 1 });
    await bot("sendMessage", { chat_id: 42, text: `<b>Welcome</b>: ${result.invite_link}` });
    const html = await page();
    assert.ok(html.includes("&lt;b&gt;Welcome&lt;/b&gt;"), "the bot's text is escaped");
    assert.ok(html.includes(`<a href="${result.invite_link}">`), "its link is a link");
    assert.match(html, /Nobody has joined\./);

    assert.equal((await form("join", { bot: "123456789", user_id: "42", first_name: "Ada", link: result.invite_link })).status, 303);
    assert.match(await page(), /Ada \(42\): <span class="state member">member<\/span>/);
    const second = await form("join", { bot: "123456789", user_id: "43", first_name: "Bo", link: result.invite_link });
    assert.match(decodeURIComponent(second.headers.get("location")!), /invite link is invalid or has expired/);
    assert.doesNotMatch(await page(), /Bo \(43\)/);

    await bot("banChatMember", { chat_id: -100500, user_id: 42 });
    assert.match(await page(), /Ada \(42\): <span class="state banned">banned<\/span>/);
  });

  it("adds the bot to a chat as Telegram's my_chat_member says, names the chat on the page and in getChat", async () => {
    const html = await page();
    assert.match(html, /<h3 id="add-chat-123456789">Add the bot to a chat<\/h3>/);
    assert.match(html, /<label>Chat<input name="title" required/);
    assert.match(html, /<button>Add the bot to a chat<\/button>/);
    const hook = fake.telegramWebhook(123456789)!;
    // As the installed bot asks (drivers/telegram.ts): Telegram sends my_chat_member only to a webhook that wants it.
    await bot("setWebhook", { url: hook.url, secret_token: "s3cret", allowed_updates: ["message", "my_chat_member"] });
    const before = updates.length;
    const added = await form("add-chat", { bot: "123456789", title: "Owls <VIP>", chat_id: "-1002223334445", type: "channel" });
    assert.equal(added.status, 303);
    assert.equal(updates.length, before + 1);
    const { secret, update } = updates.at(-1)!;
    assert.equal(secret, "s3cret");
    const change = update.my_chat_member;
    assert.deepEqual(change.chat, { id: -1002223334445, type: "channel", title: "Owls <VIP>" });
    assert.deepEqual([change.old_chat_member.status, change.new_chat_member.status], ["left", "administrator"]);
    assert.deepEqual(change.new_chat_member.user, { id: 123456789, is_bot: true, first_name: "owls_bot", username: "owls_bot" });
    assert.equal(change.new_chat_member.can_invite_users, true);
    assert.equal(change.new_chat_member.can_restrict_members, true);
    assert.match(await page(), /<h3>Community chat Owls &lt;VIP&gt; \(-1002223334445\)<\/h3>/);
    assert.deepEqual((await bot("getChat", { chat_id: "-1002223334445" })).result, { id: -1002223334445, type: "channel", title: "Owls <VIP>" });

    const generated = await form("add-chat", { bot: "123456789", title: "Night Owls" });
    assert.match(decodeURIComponent(generated.headers.get("location")!), /supergroup "Night Owls" \(-100[0-9]{10}\)/);
    assert.equal((await form("add-chat", { bot: "123456789", title: "Bad", chat_id: "12" })).status, 400);
    assert.equal((await form("add-chat", { bot: "1", title: "No bot" })).status, 400);
  });

  it("refuses a form posted from another site, and one naming no user", async () => {
    const before = updates.length;
    assert.equal((await form("send", { bot: "123456789", user_id: "42", first_name: "Ada", text: "hi" }, "https://evil.example")).status, 403);
    assert.equal((await form("send", { bot: "123456789", user_id: "", first_name: "Ada", text: "hi" })).status, 400);
    assert.equal(updates.length, before);
  });
});
