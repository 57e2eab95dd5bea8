// A local fake of the platforms' HTTP APIs, for tests and for an embedded start (which never
// contacts an outside host). It listens on 127.0.0.1 on a free port and speaks the real shapes of
// the calls the drivers make, recording each call for assertions:
//   Telegram Bot API  /bot<token>/<method>: every method the Telegram driver calls (chats, invite and
//                     join-request links, bans, messages, command menus, Telegram Stars) -> {ok: true,
//                     result} or {ok: false, error_code, description}
//   Simulator         functions on FakePlatform (payInvoice, renewSubscription, cancelSubscription,
//                     requestToJoin) and the same as POST /_sim/telegram/<function>, acting as a Telegram
//                     user: they post updates to the bot's webhook as Telegram does.
//   Simulator page    GET /_sim/telegram: the same for a person in a browser, with messages to the
//                     bot, its answers and its chats' members (fake-telegram-page.ts).
//   Discord API       the OAuth token and REST calls the Discord driver makes (fake-discord.ts).
//   Discord simulator sendDiscordInteraction on FakePlatform, and POST /_sim/discord/interactions
//                     ({url, ...interaction} in, {status, body, token} out): a member's slash command
//                     posted to an interactions endpoint, signed with the application's key
//                     (fake-discord-interactions.ts).
// The bot administers every chat and is in every server unless a test (or the simulator page's
// "Remove the bot" button) says otherwise; a revoked token is refused as Telegram refuses one.
// A Discord server's roles are @everyone, the bot's own role (position 10, Manage Roles) and the
// roles a test places (fake-discord-roles.ts); a member role call on a placed role fails as
// Discord's does (deleted: 404, not below the bot's role or no Manage Roles: 403), and on any other
// role, an ordinary one below the bot's, succeeds.
// Bots and authorization codes are registered by the test; with `acceptAny` (the embedded default)
// any well-formed bot token names a bot and any code adds the bot to a guild named after it. With
// `stateFile` (an embedded start: DATA_DIR) it remembers, as the platforms do, across restarts: the
// bots' webhooks and standing, their calls (so the chats, members and invite links), what people did
// on the page, the Stars invoices and charges, and Discord's servers, channels and roles. It answers
// a loopback Host only (../simulation/loopback.ts).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { listenPreferring, refusedForeignHost } from "../loopback.ts";
import { openStateFile, type StateFile } from "../state-file.ts";
import { jsonParam, telegramStars, type StarsSimulator, type TelegramWebhook } from "./fake-telegram-stars.ts";
import { restoreStars, starsSnapshot, starsStore, type StarsSnapshot, type SimulatedTelegramUser } from "./fake-telegram-stars-store.ts";
import { telegramSimPage, type BotStanding, type UserAction } from "./fake-telegram-page.ts";
import { simulatedChats, type SimulatedChat } from "./fake-telegram-chats.ts";
import { telegramCommandMenus, type BotCommand, type CommandScope } from "./fake-telegram-commands.ts";
import { createFakeDiscord, type DiscordSnapshot } from "./fake-discord.ts";
import type { SimulatedInteraction } from "./fake-discord-interactions.ts";
import { discordSimulator, type DiscordSimulator } from "./fake-discord-simulator.ts";
import { telegramJoinRequests, type JoinRequestSimulator, type JoinRequestsSnapshot } from "./fake-telegram-join-requests.ts";

export type { InvoiceRef, PaymentOutcome, SimulatedTelegramUser, TelegramWebhook } from "./fake-telegram-stars.ts";

export interface RecordedCall {
  platform: "telegram" | "discord";
  /** HTTP method. */
  method: string;
  /** Telegram: the Bot API method; Discord: the path. */
  name: string;
  /** Telegram: the bot token's id part (never the secret); Discord: null. */
  bot: string | null;
  params: Record<string, unknown>;
}

export interface FakePlatform extends StarsSimulator, DiscordSimulator, JoinRequestSimulator {
  url: string;
  /** Every call received, oldest first. */
  readonly calls: RecordedCall[];
  addTelegramBot(token: string, bot: { id: number; username: string }): void;
  /**
   * The bot's standing in a chat from now on: administrator with every right by default; a member
   * is refused invite links and bans (400 not enough rights), a kicked bot every call there (403).
   * A user's id as `chat` is their private chat: "kicked" there is the user who blocked the bot.
   */
  setTelegramBotStatus(botId: number, chat: string, status: BotStanding): void;
  /** The token is refused from now on (revoked in @BotFather, or the bot banned by Telegram: both answer 401). */
  revokeTelegramToken(token: string): void;
  /** The chat is gone (deleted by its owner): every call naming it answers 400 chat not found. */
  deleteTelegramChat(chat: string): void;
  /** The bot's next `times` calls answer 429 Too Many Requests with parameters.retry_after = `seconds`. */
  throttleTelegramBot(token: string, seconds: number, times?: number): void;
  /** Answers every request after `ms` (time-out tests). */
  delay(ms: number): void;
  /** The bot's webhook as its last setWebhook left it (null after deleteWebhook or before any). */
  telegramWebhook(botId: number): TelegramWebhook | null;
  /** The bot's command menu in a scope (setMyCommands; the default scope when none is given). */
  telegramCommands(botId: number, scope?: CommandScope, language?: string): BotCommand[];
  close(): Promise<void>;
}

const TOKEN = /^([0-9]{6,12}):[A-Za-z0-9_-]{30,}$/;

function send(res: ServerResponse, status: number, body?: unknown) {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

async function readParams(req: IncomingMessage, url: URL): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString("utf8");
  const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
  if (!raw) return params;
  if ((req.headers["content-type"] ?? "").includes("application/x-www-form-urlencoded"))
    return { ...params, ...Object.fromEntries(new URLSearchParams(raw)) };
  try {
    return { ...params, ...(JSON.parse(raw) as Record<string, unknown>) };
  } catch {
    return params;
  }
}

/** What the simulation remembers across an embedded start's restarts, as plain JSON; the port is taken again when free. */
interface PlatformFile {
  port: number;
  telegram: {
    bots: [string, { id: number; username: string }][];
    botStatus: [string, BotStanding][];
    revokedTokens: string[];
    /** The chats deleted (absent from a file written before chats could be). */
    deletedChats?: string[];
    webhooks: [number, TelegramWebhook][];
    /** Every call, with Telegram's answer to those it took: the chats, members and invite links are read from them. */
    calls: (RecordedCall & { result?: unknown })[];
    page: { users: SimulatedTelegramUser[]; actions: UserAction[] };
    /** The chats added to a bot on the page (absent from a file written before there were any). */
    chats?: SimulatedChat[];
    /** Join-request links, pending requests and approved members (absent from a file written before there were any). */
    joinRequests?: JoinRequestsSnapshot;
    stars: StarsSnapshot;
  };
  discord: DiscordSnapshot;
}

export async function startFakePlatform(
  options: { acceptAny?: boolean; stateFile?: string; discordInteractionsUrl?: string; port?: number | null } = {},
): Promise<FakePlatform> {
  const bots = new Map<string, { id: number; username: string }>();
  const calls: RecordedCall[] = [];
  let delayMs = 0;
  const botStatus = new Map<string, BotStanding>();
  const revokedTokens = new Set<string>();
  const deletedChats = new Set<string>();
  const throttled = new Map<string, { seconds: number; times: number }>();
  const webhooks = new Map<number, TelegramWebhook>();
  const store = starsStore();
  const chats = simulatedChats();
  const menus = telegramCommandMenus();
  const stars = telegramStars(webhooks, store);
  const botUsername = (id: number) => [...bots.values()].find((bot) => bot.id === id)?.username ?? `sb_demo_${id}_bot`;
  const joinRequests = telegramJoinRequests({ chats, botUsername, deliver: stars.deliver });
  const discord = createFakeDiscord({
    calls,
    acceptAny: options.acceptAny ?? false,
    send,
    ...(options.discordInteractionsUrl ? { interactionsUrl: options.discordInteractionsUrl } : {}),
  });
  /** What Telegram answered to each call it took (the simulator page shows invite links and invoices from it). */
  const results = new WeakMap<object, unknown>();
  const simPage = telegramSimPage({
    calls,
    resultOf: (call) => results.get(call),
    webhooks,
    botUsername,
    deliver: stars.deliver,
    requestToJoin: joinRequests.simulator.requestToJoin,
    isRequestLink: joinRequests.isRequestLink,
    payInvoice: stars.simulator.payInvoice,
    botStatus: (botId, chat) => botStatus.get(`${botId}:${chat}`) ?? "administrator",
    setBotStatus: (botId, chat, status) => void botStatus.set(`${botId}:${chat}`, status),
    chats,
  });

  const botFor = (token: string) => {
    if (revokedTokens.has(token)) return undefined;
    const known = bots.get(token);
    if (known || !options.acceptAny) return known;
    const match = TOKEN.exec(token);
    return match ? { id: Number(match[1]), username: `sb_demo_${match[1]}_bot` } : undefined;
  };

  const refuse = (res: ServerResponse, description: string) => send(res, 400, { ok: false, error_code: 400, description });

  function telegram(method: string, token: string, params: Record<string, unknown>, res: ServerResponse) {
    const bot = botFor(token);
    const call: RecordedCall = { platform: "telegram", method: "POST", name: method, bot: token.split(":")[0] ?? null, params };
    calls.push(call);
    if (!bot) return send(res, 401, { ok: false, error_code: 401, description: "Unauthorized" });
    const throttle = throttled.get(token);
    if (throttle && throttle.times > 0) {
      throttle.times -= 1;
      const description = `Too Many Requests: retry after ${throttle.seconds}`;
      return send(res, 429, { ok: false, error_code: 429, description, parameters: { retry_after: throttle.seconds } });
    }
    const ok = (result: unknown) => {
      results.set(call, result);
      send(res, 200, { ok: true, result });
    };
    const chat = params.chat_id;
    const badChat = () => send(res, 400, { ok: false, error_code: 400, description: "Bad Request: chat not found" });
    const standing = botStatus.get(`${bot.id}:${String(chat)}`) ?? "administrator";
    // Telegram's 403 for a chat the bot is out of; a private chat's id is its user's, who blocked the bot.
    const kicked = () =>
      send(res, 403, {
        ok: false,
        error_code: 403,
        description: Number(chat) > 0 ? "Forbidden: bot was blocked by the user" : "Forbidden: bot was kicked from the supergroup chat",
      });
    // A chat administration call by a bot that is out of the chat or no administrator there: true when it answered the refusal.
    const refusedThere = (short: string): boolean => {
      if (standing === "kicked") kicked();
      else if (standing === "member") send(res, 400, { ok: false, error_code: 400, description: `Bad Request: not enough rights to ${short}` });
      return standing !== "administrator";
    };
    const chatOk = typeof chat === "number" || (typeof chat === "string" && /^(-?[0-9]+|@[A-Za-z0-9_]{5,})$/.test(chat));
    if (chat !== undefined && deletedChats.has(String(chat))) return badChat();
    const payments = stars.method(method, bot, params, chatOk);
    if (payments) return payments.ok ? ok(payments.result) : refuse(res, payments.description);
    const menu = menus.method(method, bot.id, params);
    if (menu) return menu.ok ? ok(menu.result) : refuse(res, menu.description);
    switch (method) {
      case "getMe":
        return ok({ id: bot.id, is_bot: true, first_name: bot.username, username: bot.username, can_join_groups: true });
      case "createChatInviteLink":
        if (!chatOk) return badChat();
        if (refusedThere("manage chat invite links")) return;
        if (params.creates_join_request === true || params.creates_join_request === "true") {
          const made = joinRequests.createLink(bot.id, String(chat), params);
          return made.ok ? ok(made.result) : refuse(res, made.description);
        }
        return ok({
          invite_link: `https://t.me/+${randomBytes(12).toString("base64url")}`,
          creator: { id: bot.id, is_bot: true, first_name: bot.username, username: bot.username },
          creates_join_request: false,
          is_primary: false,
          is_revoked: false,
          ...(params.expire_date !== undefined ? { expire_date: Number(params.expire_date) } : {}),
          ...(params.member_limit !== undefined ? { member_limit: Number(params.member_limit) } : {}),
        });
      case "revokeChatInviteLink":
        if (!chatOk) return badChat();
        if (refusedThere("manage chat invite links")) return;
        joinRequests.revoke(String(params.invite_link));
        return ok({
          invite_link: params.invite_link,
          creator: { id: bot.id, is_bot: true, first_name: bot.username },
          creates_join_request: false,
          is_primary: false,
          is_revoked: true,
        });
      case "banChatMember":
      case "unbanChatMember":
        if (!chatOk) return badChat();
        if (refusedThere("restrict/unrestrict chat member")) return;
        if (method === "banChatMember") joinRequests.removed(bot.id, String(chat), Number(params.user_id));
        return ok(true);
      case "approveChatJoinRequest":
      case "declineChatJoinRequest": {
        if (!chatOk) return badChat();
        if (refusedThere("invite users")) return;
        const answer = joinRequests.answer(bot.id, String(chat), Number(params.user_id), method === "approveChatJoinRequest");
        return answer.ok ? ok(answer.result) : refuse(res, answer.description);
      }
      case "setWebhook": {
        // Telegram wants an https address; the fake takes the http of a local start or a test too.
        if (typeof params.url !== "string" || !/^https?:\/\//.test(params.url))
          return send(res, 400, { ok: false, error_code: 400, description: "Bad Request: bad webhook: An HTTPS URL must be provided for webhook" });
        const secret = params.secret_token;
        if (secret !== undefined && (typeof secret !== "string" || !/^[A-Za-z0-9_-]{1,256}$/.test(secret)))
          return refuse(res, "Bad Request: secret token contains unallowed characters");
        const allowed = jsonParam(params.allowed_updates);
        webhooks.set(bot.id, {
          url: params.url,
          secret_token: typeof secret === "string" ? secret : null,
          allowed_updates: Array.isArray(allowed) ? allowed.map(String) : null,
        });
        return ok(true);
      }
      case "deleteWebhook":
        webhooks.delete(bot.id);
        return ok(true);
      case "getChat":
        if (!chatOk) return badChat();
        if (standing === "kicked") return kicked();
        return ok(Number(chat) > 0 ? { id: Number(chat), type: "private" } : chats.chatObject(bot.id, String(chat)));
      case "getChatMember": {
        if (!chatOk) return badChat();
        const user = { id: Number(params.user_id), is_bot: Number(params.user_id) === bot.id, first_name: String(params.user_id) };
        if (user.id !== bot.id) return ok({ user, status: "left" });
        if (standing === "kicked") return kicked();
        if (standing === "member") return ok({ user, status: standing });
        return ok({ user, status: standing, can_be_edited: false, can_invite_users: true, can_restrict_members: true, can_delete_messages: true });
      }
      case "sendMessage":
        if (!chatOk) return badChat();
        if (standing === "kicked") return kicked();
        return ok({ message_id: calls.length, date: Math.floor(Date.now() / 1000), chat: { id: chat }, text: params.text });
      default:
        return send(res, 404, { ok: false, error_code: 404, description: "Not Found" });
    }
  }

  // An embedded start's simulation remembers what the bots did and what people did on its page (restarts included).
  let port = 0;
  const file: StateFile<PlatformFile> | null = options.stateFile
    ? openStateFile<PlatformFile>(options.stateFile, 1, () => ({
        port,
        telegram: {
          bots: [...bots],
          botStatus: [...botStatus],
          revokedTokens: [...revokedTokens],
          deletedChats: [...deletedChats],
          webhooks: [...webhooks],
          calls: calls.map((call) => ({ ...call, result: results.get(call) })),
          page: simPage.snapshot(),
          chats: chats.snapshot(),
          joinRequests: joinRequests.snapshot(),
          stars: starsSnapshot(store),
        },
        discord: discord.snapshot(),
      }))
    : null;
  if (file?.loaded) {
    const { telegram, discord: saved } = file.loaded;
    telegram.bots.forEach(([token, bot]) => bots.set(token, bot));
    telegram.botStatus.forEach(([key, status]) => botStatus.set(key, status));
    telegram.revokedTokens.forEach((token) => revokedTokens.add(token));
    telegram.deletedChats?.forEach((chat) => deletedChats.add(chat));
    telegram.webhooks.forEach(([bot, hook]) => webhooks.set(bot, hook));
    for (const { result, ...call } of telegram.calls) {
      calls.push(call);
      if (result !== undefined) results.set(call, result);
    }
    menus.replay(telegram.calls);
    simPage.restore(telegram.page);
    chats.restore(telegram.chats);
    joinRequests.restore(telegram.joinRequests);
    restoreStars(store, telegram.stars);
    discord.restore(saved);
  }

  const server = createServer((req, res) => {
    // The page's forms, the simulator's functions and the bots' state are for loopback callers only.
    if (refusedForeignHost(req, res)) return;
    const url = new URL(req.url ?? "/", "http://fake.invalid");
    void (async () => {
      const params = await readParams(req, url);
      if (await simPage.handle(req, url, params, res)) return;
      const sim = /^\/_sim\/telegram\/([A-Za-z]+)$/.exec(url.pathname);
      if (sim?.[1] === "requestToJoin" && req.method === "POST") {
        const user = params.user as SimulatedTelegramUser | undefined;
        if (typeof params.link !== "string" || typeof user?.id !== "number" || typeof user.first_name !== "string")
          return send(res, 400, { error: "requestToJoin takes {link, user: {id, first_name}}" });
        const asked = await joinRequests.simulator.requestToJoin({ link: params.link, user }).catch((err: Error) => ({ error: err.message }));
        return send(res, "error" in asked ? 400 : 200, asked);
      }
      if (sim && req.method === "POST") {
        const { status, body } = await stars.simulate(sim[1]!, params);
        return send(res, status, body);
      }
      if (url.pathname === "/_sim/discord/interactions" && req.method === "POST") {
        const { url: target, ...interaction } = params;
        if (typeof target !== "string" || !/^https?:\/\//.test(target))
          return send(res, 400, { error: "url must be the interactions endpoint's http(s) address" });
        return send(res, 200, await discord.sendInteraction(target, interaction as SimulatedInteraction));
      }
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      if (res.destroyed) return;
      const bot = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
      if (bot) return telegram(bot[2]!, decodeURIComponent(bot[1]!), params, res);
      return discord.handle(req, url.pathname, params, res);
    })()
      .catch(() => send(res, 500, { message: "fake platform failure" }))
      .finally(() => file?.changed());
  });
  const configured = options.port ?? null; // SIMULATED_PLATFORMS_PORT strictly; else the last start's, else a free one
  await listenPreferring(server, { host: "127.0.0.1", port: configured ?? file?.loaded?.port ?? 0, strict: configured !== null });
  server.unref();
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    addTelegramBot: (token, bot) => void bots.set(token, bot),
    setTelegramBotStatus: (botId, chat, status) => void botStatus.set(`${botId}:${chat}`, status),
    revokeTelegramToken: (token) => void revokedTokens.add(token),
    deleteTelegramChat: (chat) => void deletedChats.add(chat),
    throttleTelegramBot: (token, seconds, times = 1) => void throttled.set(token, { seconds, times }),
    delay: (ms) => void (delayMs = ms),
    telegramWebhook: (botId) => webhooks.get(botId) ?? null,
    telegramCommands: (botId, scope, language) => menus.of(botId, scope, language),
    ...stars.simulator,
    ...joinRequests.simulator,
    async settled() {
      await stars.simulator.settled();
      await joinRequests.settled();
    },
    ...discordSimulator(discord),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }).finally(() => file?.flush()),
  };
}
