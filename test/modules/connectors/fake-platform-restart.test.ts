// The simulated platforms of an embedded start remember, as Telegram and Discord do (issue 43,
// item 4): with a state file, a simulation started again serves on the same port and knows the
// bots' webhooks and standing, the chats' members and invite links (its page shows them and a link
// made before the restart still admits someone), the Stars charges (refundable, a subscription's
// renewals still one subscription), and Discord's application, servers and roles.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Agent, fetch } from "undici";
import { startFakePlatform, type FakePlatform } from "../../../src/simulators/platforms/fake-platform.ts";
import { SIMULATED_STATE_FILE } from "../../../src/outside/platforms.ts";
import { tempDir } from "../../helpers/processes.ts";

const BOT_ID = 555555555;
const TOKEN = `${BOT_ID}:${"y".repeat(35)}`;

describe("the simulated platforms across a restart", function () {
  this.timeout(60_000);
  let hook: Server;
  let fake: FakePlatform;
  // Connections of their own per start: one kept alive to the stopped simulation would meet the new one's port closed.
  let agent = new Agent();

  before(async () => {
    // The bot: answers every pre-checkout query ok, as SubBridge's route does for a good checkout.
    hook = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        const query = (JSON.parse(body) as { pre_checkout_query?: { id: string } }).pre_checkout_query;
        res.writeHead(200).end();
        if (query) void bot("answerPreCheckoutQuery", { pre_checkout_query_id: query.id, ok: true });
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, "127.0.0.1", resolve));
  });
  after(async () => {
    hook.close();
    await fake?.close();
  });

  const bot = (method: string, params: Record<string, unknown>) =>
    fetch(`${fake.url}/bot${TOKEN}/${method}`, {
      dispatcher: agent,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(params),
    }).then((res) => res.json() as Promise<any>);
  const form = (action: string, fields: Record<string, string>) =>
    fetch(`${fake.url}/_sim/telegram/${action}`, {
      dispatcher: agent,
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ bot: String(BOT_ID), ...fields }).toString(),
    });
  const page = () => fetch(`${fake.url}/_sim/telegram`, { dispatcher: agent }).then((res) => res.text());
  const discord = (method: string, path: string, body?: Record<string, string>) =>
    fetch(`${fake.url}${path}`, {
      dispatcher: agent,
      method,
      headers: body ? { "content-type": "application/x-www-form-urlencoded" } : { authorization: `Bot ${fake.discordApplication.botToken}` },
      ...(body ? { body: new URLSearchParams(body).toString() } : {}),
    }).then((res) => res.json() as Promise<any>);

  it("keeps Telegram's chats, members, invite links, standing and Stars, and Discord's servers and roles", async () => {
    const stateFile = join(tempDir("fake-platform-state"), SIMULATED_STATE_FILE);
    fake = await startFakePlatform({ acceptAny: true, stateFile });
    const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/updates`;
    assert.equal((await bot("setWebhook", { url: hookUrl, secret_token: "s3cret" })).ok, true);
    const first = (await bot("createChatInviteLink", { chat_id: -100700, member_limit: 1 })).result.invite_link;
    const second = (await bot("createChatInviteLink", { chat_id: -100700 })).result.invite_link;
    assert.equal((await form("join", { user_id: "42", first_name: "Ada", link: first })).status, 303);
    await bot("banChatMember", { chat_id: -100700, user_id: 77 });
    assert.equal((await form("bot-status", { chat: "-100800", status: "member" })).status, 303);
    assert.equal((await form("add-chat", { title: "Owls VIP", chat_id: "-100900" })).status, 303);
    const invoice = (
      await bot("createInvoiceLink", {
        title: "Night Owl",
        description: "Monthly",
        payload: "checkout-1",
        currency: "XTR",
        prices: [{ label: "Month", amount: 100 }],
        subscription_period: 2592000,
      })
    ).result as string;
    const paid = await fake.payInvoice({ invoice, user: { id: 42, first_name: "Ada" } });
    assert.equal(paid.status, "paid");
    const firstCharge = paid.status === "paid" ? paid.telegram_payment_charge_id : "";
    const renewed = await fake.renewSubscription({ telegram_payment_charge_id: firstCharge });
    const renewalCharge = renewed.status === "paid" ? renewed.telegram_payment_charge_id : "";
    const application = { ...fake.discordApplication };
    const { guild } = await discord("POST", "/oauth2/token", {
      client_id: application.clientId,
      client_secret: application.clientSecret,
      code: "a-code",
    });
    fake.setDiscordRole(guild.id, "900000000000000001", { position: 20 });
    const commands = await fetch(`${fake.url}/applications/${application.clientId}/guilds/${guild.id}/commands`, {
      dispatcher: agent,
      method: "PUT",
      headers: { authorization: `Bot ${application.botToken}`, "content-type": "application/json" },
      body: JSON.stringify([{ name: "status", description: "See your access", type: 1 }]),
    });
    assert.equal(commands.status, 200);
    const url = fake.url;
    await fake.close();
    agent = new Agent();

    fake = await startFakePlatform({ acceptAny: true, stateFile });
    assert.equal(fake.url, url, "a restart serves where the last start did");
    assert.deepEqual(fake.telegramWebhook(BOT_ID), { url: hookUrl, secret_token: "s3cret", allowed_updates: null });
    const html = await page();
    assert.match(html, /Ada \(42\): <span class="state member">member<\/span>/);
    assert.match(html, /77: <span class="state banned">banned<\/span>/);
    assert.ok(html.includes(`${first}: <span class="state active">active</span>, joined by Ada`), "the first link's use is remembered");
    assert.equal((await bot("getChatMember", { chat_id: -100800, user_id: BOT_ID })).result.status, "member");
    assert.match(html, /Community chat Owls VIP \(-100900\)/);
    assert.equal((await bot("getChat", { chat_id: -100900 })).result.title, "Owls VIP");
    // A link made before the restart still admits someone, and one used up still admits no one.
    await form("join", { user_id: "43", first_name: "Bo", link: second });
    assert.match(await page(), /Bo \(43\): <span class="state member">member<\/span>/);
    const full = await form("join", { user_id: "44", first_name: "Cy", link: first });
    assert.match(decodeURIComponent(full.headers.get("location")!), /invalid or has expired/);

    // Stars: the charges are known (a refund is taken once), and a subscription's charges are one subscription.
    assert.equal((await bot("refundStarPayment", { user_id: 42, telegram_payment_charge_id: firstCharge })).ok, true);
    assert.equal(
      (await bot("refundStarPayment", { user_id: 42, telegram_payment_charge_id: firstCharge })).description,
      "Bad Request: CHARGE_ALREADY_REFUNDED",
    );
    fake.cancelSubscription({ telegram_payment_charge_id: firstCharge });
    await assert.rejects(fake.renewSubscription({ telegram_payment_charge_id: renewalCharge }), /canceled/);
    assert.equal((await bot("getStarTransactions", {})).result.transactions.length, 3);

    // Discord: the same application (its key pair too), the server the bot was added to places a new channel, the placed role and the commands are there.
    assert.deepEqual(fake.discordApplication, application);
    assert.deepEqual(
      fake.discordCommands(guild.id).map((c) => (c as { name: string }).name),
      ["status"],
    );
    assert.equal((await discord("GET", "/channels/123456789012345678")).guild_id, guild.id);
    assert.ok(
      (await discord("GET", `/guilds/${guild.id}/roles`)).some(
        (r: { id: string; position: number }) => r.id === "900000000000000001" && r.position === 20,
      ),
    );
  });
});
