// The Telegram connector's driver: the Bot API (<TELEGRAM_API_URL>/bot<token>/<method>, JSON in,
// {ok, result} or {ok: false, error_code, description} out). The install credential is the bot
// token; getMe names the bot, whose t.me address is the installation's bot URL.
import {
  PlatformError,
  platformCall,
  type ConnectorDriver,
  type NativeInvoice,
  type NativeTransaction,
  type PlatformSession,
  type ProbeResult,
} from "./driver.ts";

export interface TelegramOptions {
  apiUrl: string;
  timeoutMs: number;
}

interface TelegramUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  username?: string;
}

/** Calls a Bot API method; answers its result or throws PlatformError. */
async function callBotApi<T>(options: TelegramOptions, token: string, method: string, params: Record<string, unknown> = {}): Promise<T> {
  const { status, body } = await platformCall("Telegram", `${options.apiUrl}/bot${token}/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(params),
    timeoutMs: options.timeoutMs,
  });
  if (body?.ok === true) return body.result as T;
  const description = typeof body?.description === "string" ? body.description : `HTTP ${status}`;
  if (status === 429) {
    const seconds = Number(body?.parameters?.retry_after);
    const waitMs = Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000;
    throw new PlatformError("rate_limited", `Telegram asked to wait before ${method} (${description}).`, null, description, waitMs);
  }
  // 401 Unauthorized: the token is unknown or revoked; 404 on getMe means the same (bad token path).
  if (status === 401 || (status === 404 && method === "getMe"))
    throw new PlatformError("unauthorized", `Telegram refused the bot token (${description}).`, "fields.bot_token");
  throw new PlatformError(
    "refused",
    `Telegram refused ${method}: ${description}.`,
    null,
    typeof body?.description === "string" ? body.description : null,
  );
}

/** The Bot API parameters of a Stars invoice: currency XTR, an empty provider token, exactly one price. */
function starsInvoice(invoice: NativeInvoice): Record<string, unknown> {
  return {
    title: invoice.title,
    description: invoice.description,
    payload: invoice.payload,
    provider_token: "",
    currency: "XTR",
    prices: [{ label: invoice.label ?? invoice.title, amount: invoice.amount }],
  };
}

/** The Bot API's StarTransaction, as far as payments from and refunds to members go. */
interface StarTransaction {
  id: string;
  amount: number;
  date: number;
  /** Set on incoming transactions (a member's payment). */
  source?: TransactionPartner;
  /** Set on outgoing transactions (a refund to a member). */
  receiver?: TransactionPartner;
}

interface TransactionPartner {
  type: string;
  user?: TelegramUser;
  invoice_payload?: string;
  subscription_period?: number;
}

/** A StarTransaction as the driver names it: one with a source came in, one with a receiver went out. */
function nativeTransaction(tx: StarTransaction): NativeTransaction {
  const partner = tx.source ?? tx.receiver;
  const member = partner?.type === "user" ? partner : undefined;
  return {
    id: tx.id,
    direction: tx.source ? "in" : "out",
    amount: tx.amount,
    date: tx.date,
    userId: member?.user ? String(member.user.id) : null,
    payload: member?.invoice_payload ?? null,
    subscriptionPeriod: member?.subscription_period ?? null,
  };
}

/** The Bot API's ChatMember, as far as the bot's own standing in a chat goes. */
interface ChatMember {
  status: "creator" | "administrator" | "member" | "restricted" | "left" | "kicked";
  can_invite_users?: boolean;
  can_restrict_members?: boolean;
}

/** Why the bot's standing in a chat does not let it run access there; null when it does. */
function standingProblem(member: ChatMember): string | null {
  if (member.status === "creator") return null;
  if (member.status === "left" || member.status === "kicked") return "the bot is not in the chat";
  if (member.status !== "administrator") return "the bot is not an administrator of the chat";
  // Invite links need can_invite_users; removing and banning members needs can_restrict_members.
  const missing = [!member.can_invite_users && "invite users", !member.can_restrict_members && "ban users"].filter(Boolean);
  return missing.length ? `the bot is an administrator without the right to ${missing.join(" or ")}` : null;
}

/** getMe, then getChatMember of the bot in each place; a refused token or chat is a verdict, not an error. */
async function probeBot(call: <T>(method: string, params: Record<string, unknown>) => Promise<T>, places: readonly string[]): Promise<ProbeResult> {
  const refusedToken = (err: unknown): ProbeResult => {
    if (!(err instanceof PlatformError) || err.kind !== "unauthorized") throw err;
    const reason = "Telegram refused the bot token (revoked or replaced in @BotFather)";
    return { account: { ok: false, reason }, places: places.map((place) => ({ place, ok: false, reason })) };
  };
  let bot: TelegramUser;
  try {
    bot = await call<TelegramUser>("getMe", {});
  } catch (err) {
    return refusedToken(err);
  }
  const results: ProbeResult["places"] = [];
  for (const place of places) {
    try {
      const problem = standingProblem(await call<ChatMember>("getChatMember", { chat_id: place, user_id: bot.id }));
      results.push(problem ? { place, ok: false, reason: problem } : { place, ok: true });
    } catch (err) {
      if (err instanceof PlatformError && err.kind === "refused") results.push({ place, ok: false, reason: err.description ?? err.message });
      else return refusedToken(err);
    }
  }
  return { account: { ok: true }, places: results };
}

export function telegramDriver(options: TelegramOptions): ConnectorDriver {
  const tokenOf = (fields: Readonly<Record<string, string | boolean>>) => {
    const token = fields.bot_token;
    if (typeof token !== "string" || !token) throw new PlatformError("unauthorized", "The installation has no bot token.", "fields.bot_token");
    return token;
  };
  return {
    key: "telegram",
    async verify(input) {
      const bot = await callBotApi<TelegramUser>(options, tokenOf(input.fields), "getMe");
      if (!bot.is_bot || !bot.username)
        throw new PlatformError("unauthorized", "The token does not belong to a bot with a username.", "fields.bot_token");
      return { accountId: String(bot.id), accountName: bot.username, botUrl: `https://t.me/${bot.username}` };
    },
    session(installation): PlatformSession {
      const token = tokenOf(installation.fields);
      const call = <T>(method: string, params: Record<string, unknown>) => callBotApi<T>(options, token, method, params);
      const noRoles = async () => {
        throw new PlatformError("unsupported", "Telegram has no roles; its places are gated by invite links and bans.");
      };
      const noAdmission = async () => {
        throw new PlatformError("unsupported", "Telegram lets members in by invite links (bearer_link), not by permissions.");
      };
      return {
        async createInviteLink(place, expiry, { joinRequest = false } = {}) {
          const expire_date = Math.floor(expiry.expiresAt.getTime() / 1000);
          // Telegram refuses member_limit on a join-request link: each request is answered instead (join-requests.ts).
          const limit = joinRequest ? { creates_join_request: true } : { member_limit: 1 };
          const link = await call<{ invite_link: string }>("createChatInviteLink", { chat_id: place, ...limit, expire_date });
          return { url: link.invite_link };
        },
        async answerJoinRequest(place, userId, approve) {
          await call(approve ? "approveChatJoinRequest" : "declineChatJoinRequest", { chat_id: place, user_id: Number(userId) });
        },
        async revokeInviteLink(place, link) {
          await call("revokeChatInviteLink", { chat_id: place, invite_link: link });
        },
        async removeMember(place, userId, { ban = false } = {}) {
          await call("banChatMember", { chat_id: place, user_id: Number(userId) });
          // A removal that is not a ban lifts the ban at once: the member may join again later.
          if (!ban) await call("unbanChatMember", { chat_id: place, user_id: Number(userId), only_if_banned: true });
        },
        admit: noAdmission,
        unadmit: noAdmission,
        addRole: noRoles,
        removeRole: noRoles,
        async deliverUpdates(target) {
          // pre_checkout_query: Telegram charges a Stars payment only after the bot answers one;
          // chat_member (sent only when asked for): joins, which the connector sweep checks against the grants;
          // my_chat_member: the bot's own standing in a chat changed (removed, demoted), which a recovery probe checks at once;
          // chat_join_request: someone asks to join a place under an early admission hold, answered by the grants (join-requests.ts).
          const allowed_updates = ["message", "pre_checkout_query", "chat_member", "my_chat_member", "chat_join_request"];
          if (target) await call("setWebhook", { url: target.url, secret_token: target.secret, allowed_updates });
          else await call("deleteWebhook", {});
        },
        async sendMessage(chat, text) {
          await call("sendMessage", { chat_id: chat, text });
        },
        async setCommands(commands, chat) {
          // BotCommandScopeChat for one person's private chat (it replaces the all_private_chats list there).
          const scope = chat === null ? { type: "all_private_chats" } : { type: "chat", chat_id: chat };
          await call("setMyCommands", { commands, scope });
        },
        // Telegram has no roles, so a probe's `roles` (none of its resources) are not asked about.
        probe: (places) => probeBot(call, places),
        payments: {
          async createInvoiceLink(invoice) {
            return call<string>("createInvoiceLink", {
              ...starsInvoice(invoice),
              ...(invoice.subscriptionPeriod !== undefined ? { subscription_period: invoice.subscriptionPeriod } : {}),
            });
          },
          async sendInvoice(chat, invoice) {
            await call("sendInvoice", { chat_id: chat, ...starsInvoice(invoice) });
          },
          async answerPreCheckoutQuery(queryId, answer) {
            await call("answerPreCheckoutQuery", {
              pre_checkout_query_id: queryId,
              ok: answer.ok,
              ...(answer.ok ? {} : { error_message: answer.errorMessage }),
            });
          },
          async refund(userId, chargeId) {
            await call("refundStarPayment", { user_id: Number(userId), telegram_payment_charge_id: chargeId });
          },
          async setSubscriptionCanceled(userId, chargeId, canceled) {
            await call("editUserStarSubscription", { user_id: Number(userId), telegram_payment_charge_id: chargeId, is_canceled: canceled });
          },
          async transactions({ offset, limit }) {
            const page = await call<{ transactions: StarTransaction[] }>("getStarTransactions", { offset, limit });
            return page.transactions.map(nativeTransaction);
          },
        },
      };
    },
  };
}
