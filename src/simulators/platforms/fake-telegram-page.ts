// The simulated Telegram as a person sees it, on the fake platform's own loopback address
// (fake-platform.ts): GET /_sim/telegram shows, for each bot with a webhook, a form to message the
// bot as a Telegram user, each user's conversation with the bot (its messages, invoices and links),
// and the community chats the bot manages (the invite links it made, who joined, who was removed or
// banned), with a form that adds the bot to a new chat as its administrator (fake-telegram-chats.ts).
// The forms act as the Telegram app would: a private message, a join through an invite link and the
// bot's change of standing go to the bot's webhook as updates, and an invoice's Pay button is the simulator's
// payInvoice. It reads the fake's own record of Bot API calls; it is a developer tool served on
// loopback only, with no script, no outside asset and a CSP.
import type { IncomingMessage, ServerResponse } from "node:http";
import { escape } from "html-escaper";
import { foreignForm, LINK, linkified, pageHeaders, simPage } from "./sim-page.ts";
import type { InvoiceRef, StarsSimulator, SimulatedTelegramUser, TelegramWebhook } from "./fake-telegram-stars.ts";
import { addBotToChat, addChatForm, chatHeading, type SimulatedChats } from "./fake-telegram-chats.ts";
import type { JoinRequestSimulator } from "./fake-telegram-join-requests.ts";

/** A Bot API call as the fake records it (fake-platform.ts's RecordedCall, named here without importing it back). */
type RecordedCall = { platform: string; name: string; bot: string | null; params: Record<string, unknown> };

/** What the page reads from the fake: its Bot API calls (with their results), the webhooks, and how updates reach a bot. */
export interface SimPageSource {
  calls: readonly RecordedCall[];
  /** What Telegram answered to a call it took; undefined for a refused one. */
  resultOf(call: RecordedCall): unknown;
  webhooks: ReadonlyMap<number, TelegramWebhook>;
  botUsername(botId: number): string;
  deliver(botId: number, type: string, body: Record<string, unknown>): Promise<{ delivered: boolean }>;
  payInvoice: StarsSimulator["payInvoice"];
  /** A join-request link (fake-telegram-join-requests.ts): opening it asks to join, and the bot answers the request. */
  isRequestLink(link: string): boolean;
  requestToJoin: JoinRequestSimulator["requestToJoin"];
  /** The bot's standing in a chat, and the page's way to remove it, demote it or make it an administrator again (recovery probes). */
  botStatus(botId: number, chat: string): BotStanding;
  setBotStatus(botId: number, chat: string, status: BotStanding): void;
  /** The chats known by name (added to the bot on the page). */
  chats: SimulatedChats;
}

/** The bot's standing in a chat, as getChatMember answers it. */
export type BotStanding = "administrator" | "member" | "kicked";

/** What the page says once a chat's admin changed the bot's standing. */
const STANDING_CHANGED: Record<BotStanding, (chat: string) => string> = {
  administrator: (chat) => `The bot is an administrator of chat ${chat}.`,
  member: (chat) => `The bot is a plain member of chat ${chat}: it can no longer invite or remove anyone there.`,
  kicked: (chat) => `The bot was removed from chat ${chat}.`,
};

/** Something a user did on the page, placed among the bot's calls by `at` (the number of calls made before it). */
export type UserAction =
  | { kind: "message"; at: number; botId: number; user: SimulatedTelegramUser; text: string; delivered: boolean }
  | { kind: "join"; at: number; botId: number; user: SimulatedTelegramUser; chat: string; link: string };

const userFields = (user: SimulatedTelegramUser) =>
  `<input type="hidden" name="user_id" value="${user.id}"><input type="hidden" name="first_name" value="${escape(user.first_name)}">`;

function actionButton(
  path: string,
  botId: number,
  user: SimulatedTelegramUser | null,
  fields: Record<string, string | number>,
  label: string,
): string {
  const hidden = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${escape(String(value))}">`)
    .join("");
  return `<form class="inline" method="post" action="/_sim/telegram/${path}"><input type="hidden" name="bot" value="${botId}">${user ? userFields(user) : ""}${hidden}<button>${escape(label)}</button></form>`;
}

export function telegramSimPage(source: SimPageSource) {
  const users = new Map<number, SimulatedTelegramUser>();
  const actions: UserAction[] = [];

  const telegramCalls = () =>
    source.calls
      .map((call, index) => ({ ...call, index, result: source.resultOf(call) }))
      .filter((call) => call.platform === "telegram" && call.result !== undefined);

  /** The places of a bot (chats it made invite links for or removed someone from), with their links and members. */
  function communities(botId: number) {
    const chats = new Map<
      string,
      {
        links: Map<string, { state: string; usedBy: string[]; expireDate: number | null; memberLimit: number | null }>;
        members: Map<number, { user: string; state: string }>;
        /** The bot looked itself up there (a recovery probe's getChatMember): a place it manages. */
        probed?: boolean;
        /** A person added the bot to it on the page. */
        named?: boolean;
      }
    >();
    for (const known of source.chats.ofBot(botId)) chats.set(known.id, { links: new Map(), members: new Map(), named: true });
    const chat = (id: unknown) => {
      const key = String(id);
      if (!chats.has(key)) chats.set(key, { links: new Map(), members: new Map() });
      return chats.get(key)!;
    };
    const events = [
      ...telegramCalls()
        .filter((call) => call.bot === String(botId))
        .map((call) => ({ at: call.index, call, join: null as null | Extract<UserAction, { kind: "join" }> })),
      ...actions
        .filter((a) => a.kind === "join" && a.botId === botId)
        .map((a) => ({ at: a.at - 0.5, call: null, join: a as Extract<UserAction, { kind: "join" }> })),
    ].sort((a, b) => a.at - b.at);
    for (const { call, join } of events) {
      if (join) {
        const place = chat(join.chat);
        place.links.get(join.link)?.usedBy.push(join.user.first_name);
        place.members.set(join.user.id, { user: `${join.user.first_name} (${join.user.id})`, state: "member" });
        continue;
      }
      const params = call!.params;
      const member = chat(params.chat_id).members;
      const userId = Number(params.user_id);
      if (call!.name === "createChatInviteLink") {
        const made = call!.result as { invite_link: string; expire_date?: number; member_limit?: number };
        const limits = { expireDate: made.expire_date ?? null, memberLimit: made.member_limit ?? null };
        chat(params.chat_id).links.set(made.invite_link, { state: "active", usedBy: [], ...limits });
      }
      if (call!.name === "getChatMember") chat(params.chat_id).probed = true;
      if (call!.name === "approveChatJoinRequest") member.set(userId, { user: member.get(userId)?.user ?? String(userId), state: "member" });
      if (call!.name === "revokeChatInviteLink") {
        const link = chat(params.chat_id).links.get(String(params.invite_link));
        if (link) link.state = "revoked";
      }
      if (call!.name === "banChatMember") member.set(userId, { user: member.get(userId)?.user ?? String(userId), state: "banned" });
      if (call!.name === "unbanChatMember" && member.get(userId)?.state === "banned") member.get(userId)!.state = "removed";
    }
    return chats;
  }

  /** A user's conversation with a bot: what they sent and what the bot sent to their private chat, in order. */
  function conversation(botId: number, user: SimulatedTelegramUser): string {
    const fromBot = telegramCalls()
      .filter(
        (call) => call.bot === String(botId) && ["sendMessage", "sendInvoice"].includes(call.name) && String(call.params.chat_id) === String(user.id),
      )
      .map((call) => {
        if (call.name === "sendMessage") {
          const text = String(call.params.text ?? "");
          const buttons = [...text.matchAll(LINK)].map(([link]) => {
            if (link.startsWith("https://t.me/+")) return actionButton("join", botId, user, { link }, `Join through ${link}`);
            if (link.startsWith("https://t.me/$")) return actionButton("pay", botId, user, { invoice: link }, "Pay the invoice");
            return "";
          });
          return {
            at: call.index,
            html: `<li class="bot"><span class="from">Bot</span><span class="text">${linkified(text)}</span> ${buttons.join(" ")}</li>`,
          };
        }
        const { message_id } = call.result as { message_id: number };
        const amount = (call.params.prices as { amount?: number }[] | string | undefined) ?? [];
        const stars = (typeof amount === "string" ? (JSON.parse(amount) as { amount: number }[]) : amount)[0]?.amount ?? 0;
        return {
          at: call.index,
          html: `<li class="bot"><span class="from">Bot</span>Invoice: ${escape(String(call.params.title))}, ${stars} ⭐ ${actionButton("pay", botId, user, { chat_id: user.id, message_id }, `Pay ${stars} ⭐`)}</li>`,
        };
      });
    const fromUser = actions
      .filter((a): a is Extract<UserAction, { kind: "message" }> => a.kind === "message" && a.botId === botId && a.user.id === user.id)
      .map((a) => ({
        at: a.at - 0.5,
        html: `<li class="user"><span class="from">${escape(a.user.first_name)}</span><span class="text">${linkified(a.text)}</span>${a.delivered ? "" : " (not delivered: the webhook refused it)"}</li>`,
      }));
    const items = [...fromBot, ...fromUser].sort((a, b) => a.at - b.at);
    return `<ol>${items.map((i) => i.html).join("") || "<li>No messages yet.</li>"}</ol>`;
  }

  /** The bot's standing in a chat, with the buttons a chat's admin has: remove or demote it, or make it an administrator again. */
  function botStanding(botId: number, chat: string): string {
    const standing = source.botStatus(botId, chat);
    const button = (status: BotStanding, label: string) => actionButton("bot-status", botId, null, { chat, status }, label);
    if (standing === "administrator")
      return `<p class="hint">The bot: administrator ${button("kicked", "Remove the bot from this chat")} ${button("member", "Make it a plain member")}</p>`;
    const shown = standing === "kicked" ? '<span class="state removed">removed</span>' : '<span class="state removed">a plain member</span>';
    const label = standing === "kicked" ? "Add the bot back as an administrator" : "Make it an administrator";
    return `<p class="hint">The bot: ${shown} ${button("administrator", label)}</p>`;
  }

  /** `opened`: a start link followed here (?bot=<username>&start=<payload>), as t.me would open the chat with a Start button. */
  function page(notice: string | null, opened: { bot: string; start: string } | null = null): string {
    const bots = [...source.webhooks.keys()];
    const sections = bots.map((botId) => {
      const username = source.botUsername(botId);
      const start = opened?.bot === username ? `/start ${opened.start}` : null;
      const talking = [...users.values()].filter((u) => actions.some((a) => a.botId === botId && a.user.id === u.id));
      const chats = [...communities(botId)].filter(([, c]) => c.links.size || c.members.size || c.probed || c.named);
      return `<section aria-labelledby="bot-${botId}"><h2 id="bot-${botId}">@${escape(username)}</h2>
<p class="hint">Webhook: ${escape(source.webhooks.get(botId)!.url)}</p>
<form method="post" action="/_sim/telegram/send"><input type="hidden" name="bot" value="${botId}"><div class="grid">
<label>User id<input name="user_id" inputmode="numeric" required pattern="[0-9]{1,15}"></label>
<label>First name<input name="first_name" required maxlength="64"></label>
<label>Message<input name="text" required maxlength="4096" placeholder="/start"${start ? ` value="${escape(start)}" autofocus` : ""}></label>
<button>Send to @${escape(username)}</button></div></form>
${start ? `<p class="notice" role="status">Opened from a start link: enter a user id and first name, then send ${escape(start)} to start @${escape(username)}.</p>` : ""}
${addChatForm(botId)}
${talking.map((u) => `<h3>Chat with ${escape(u.first_name)} (${u.id})</h3>${conversation(botId, u)}`).join("")}
${chats
  .map(
    ([id, c]) => `<h3>Community chat ${chatHeading(source.chats, botId, id)}</h3>
${botStanding(botId, id)}
<p class="hint">Members</p><ol>${[...c.members.values()].map((m) => `<li>${escape(m.user)}: <span class="state ${m.state}">${m.state}</span></li>`).join("") || "<li>Nobody has joined.</li>"}</ol>
<p class="hint">Invite links the bot created</p><ol>${[...c.links]
      .map(
        ([link, l]) =>
          `<li>${escape(link)}: <span class="state ${l.state}">${l.state}</span>${l.usedBy.length ? `, joined by ${escape(l.usedBy.join(", "))}` : ""}</li>`,
      )
      .join("")}</ol>`,
  )
  .join("")}
</section>`;
    });
    return simPage(
      "Simulated Telegram",
      `<h1>Simulated Telegram</h1>
<p class="hint">Act as a Telegram user: message a bot (its webhook gets the update), read its answers, join its chats through the invite links it sends, pay its Stars invoices. Nothing here reaches the real Telegram.</p>
${notice ? `<p class="notice" role="status">${escape(notice)}</p>` : ""}
${sections.join("") || "<section><p>No bot has a webhook yet: install the Telegram connector on a project (any well-formed bot token works here).</p></section>"}
`,
    );
  }

  function sendPage(res: ServerResponse, status: number, notice: string | null) {
    res.writeHead(status, pageHeaders()).end(page(notice));
  }

  /** A form's action done: back to the page (POST-redirect-GET) with what happened. */
  const done = (res: ServerResponse, notice: string) => res.writeHead(303, { location: `/_sim/telegram?notice=${encodeURIComponent(notice)}` }).end();

  async function act(action: string, params: Record<string, unknown>, res: ServerResponse) {
    const botId = Number(params.bot);
    const user = { id: Number(params.user_id), first_name: String(params.first_name ?? "").trim() };
    if (!source.webhooks.has(botId)) return sendPage(res, 400, "That bot has no webhook.");
    if (!Number.isSafeInteger(user.id) || user.id <= 0 || !user.first_name)
      return sendPage(res, 400, "Name the user: a numeric id and a first name.");
    users.set(user.id, user);
    const at = source.calls.length;
    if (action === "send") {
      const text = String(params.text ?? "");
      if (!text) return sendPage(res, 400, "Write a message.");
      const { delivered } = await source.deliver(botId, "message", {
        message_id: at + 1,
        from: { is_bot: false, ...user },
        chat: { id: user.id, type: "private", first_name: user.first_name },
        date: Math.floor(Date.now() / 1000),
        text,
        ...(text.startsWith("/") ? { entities: [{ type: "bot_command", offset: 0, length: text.split(/\s/)[0]!.length }] } : {}),
      });
      actions.push({ kind: "message", at, botId, user, text, delivered });
      return done(res, delivered ? `${user.first_name} sent "${text}".` : `The bot's webhook refused ${user.first_name}'s message.`);
    }
    if (action === "join" && source.isRequestLink(String(params.link ?? ""))) {
      const asked = await source.requestToJoin({ link: String(params.link), user });
      if (asked.refused) return done(res, asked.refused);
      return done(
        res,
        asked.delivered ? `${user.first_name} asked to join; the bot answered the request.` : "The bot's webhook did not take the join request.",
      );
    }
    if (action === "join") {
      const link = String(params.link ?? "");
      const found = [...communities(botId)].find(([, c]) => c.links.has(link));
      if (!found) return sendPage(res, 400, "The bot made no such invite link.");
      const [chat, c] = found;
      const state = c.links.get(link)!;
      // As Telegram: a revoked link, one past its expire_date or one its member_limit has used up admits nobody.
      const expired = state.expireDate !== null && state.expireDate * 1000 <= Date.now();
      const full = state.memberLimit !== null && state.usedBy.length >= state.memberLimit;
      if (state.state !== "active" || expired || full) return done(res, `Telegram says: this invite link is invalid or has expired.`);
      if (c.members.get(user.id)?.state === "banned") return done(res, `${user.first_name} is banned from chat ${chat}.`);
      actions.push({ kind: "join", at, botId, user, chat, link });
      const member = (status: string) => ({ user: { is_bot: false, ...user }, status });
      await source.deliver(botId, "chat_member", {
        chat: source.chats.chatObject(botId, chat),
        from: { is_bot: false, ...user },
        date: Math.floor(Date.now() / 1000),
        old_chat_member: member("left"),
        new_chat_member: member("member"),
        invite_link: {
          invite_link: link,
          creator: { id: botId, is_bot: true, first_name: source.botUsername(botId) },
          creates_join_request: false,
          is_primary: false,
          is_revoked: false,
        },
      });
      return done(res, `${user.first_name} joined chat ${chat}.`);
    }
    if (action === "pay") {
      const invoice: InvoiceRef =
        typeof params.invoice === "string" ? params.invoice : { chat_id: Number(params.chat_id), message_id: Number(params.message_id) };
      const outcome = await source.payInvoice({ invoice, user });
      const said =
        outcome.status === "paid"
          ? `${user.first_name} paid (charge ${outcome.telegram_payment_charge_id}).`
          : outcome.status === "declined"
            ? `The bot declined the payment: ${outcome.error_message}`
            : "The bot did not answer the pre-checkout query in time; nothing was charged.";
      return done(res, said);
    }
    return sendPage(res, 404, "No such action.");
  }

  /**
   * The "Remove the bot" form: the bot's next getChatMember in that chat answers as Telegram does for
   * a kicked bot, and, as Telegram does, the bot's webhook gets a my_chat_member update saying so.
   */
  async function setStanding(params: Record<string, unknown>, res: ServerResponse) {
    const botId = Number(params.bot);
    const chat = String(params.chat ?? "");
    const status: BotStanding = params.status === "kicked" || params.status === "member" ? params.status : "administrator";
    if (!source.webhooks.has(botId) || !/^-?[0-9]+$/.test(chat)) return sendPage(res, 400, "Name a bot with a webhook and one of its chats.");
    const before = source.botStatus(botId, chat);
    source.setBotStatus(botId, chat, status);
    const bot = { id: botId, is_bot: true, first_name: source.botUsername(botId), username: source.botUsername(botId) };
    await source.deliver(botId, "my_chat_member", {
      chat: source.chats.chatObject(botId, chat),
      from: { id: 1, is_bot: false, first_name: "A chat admin" },
      date: Math.floor(Date.now() / 1000),
      old_chat_member: { user: bot, status: before },
      new_chat_member: { user: bot, status },
    });
    done(res, STANDING_CHANGED[status](chat));
  }

  /** The "Add the bot to a chat" form (fake-telegram-chats.ts). */
  async function addChat(params: Record<string, unknown>, res: ServerResponse) {
    const botId = Number(params.bot);
    if (!source.webhooks.has(botId)) return sendPage(res, 400, "That bot has no webhook.");
    const { ok, notice } = await addBotToChat(source, botId, params);
    return ok ? done(res, notice) : sendPage(res, 400, notice);
  }

  /** Serves the page and its forms; false when the request is not the page's. */
  async function handle(req: IncomingMessage, url: URL, params: Record<string, unknown>, res: ServerResponse): Promise<boolean> {
    if (url.pathname === "/_sim/telegram" && req.method === "GET") {
      const [bot, start] = [url.searchParams.get("bot"), url.searchParams.get("start")];
      res.writeHead(200, pageHeaders()).end(page(url.searchParams.get("notice"), bot && start ? { bot, start } : null));
      return true;
    }
    const action = /^\/_sim\/telegram\/(send|join|pay|bot-status|add-chat)$/.exec(url.pathname)?.[1];
    if (!action || req.method !== "POST") return false;
    // Another site's page must not drive the simulator through a person's browser: a form's Origin is this address.
    if (foreignForm(req.headers)) {
      sendPage(res, 403, "Forms are taken from this page only.");
      return true;
    }
    try {
      if (action === "bot-status") await setStanding(params, res);
      else if (action === "add-chat") await addChat(params, res);
      else await act(action, params, res);
    } catch (err) {
      sendPage(res, 400, (err as Error).message);
    }
    return true;
  }

  return {
    handle,
    /** The users and what they did, as plain JSON (an embedded start's state file). */
    snapshot: () => ({ users: [...users.values()], actions }),
    restore(saved: { users: SimulatedTelegramUser[]; actions: UserAction[] }) {
      saved.users.forEach((user) => users.set(user.id, user));
      actions.push(...saved.actions);
    },
  };
}
