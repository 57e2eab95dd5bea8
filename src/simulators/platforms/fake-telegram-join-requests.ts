// Join requests in the simulated Telegram (fake-platform.ts), as the Bot API has them: an invite
// link made with creates_join_request (member_limit is refused beside it) admits nobody by itself;
// a user who opens it asks to join, and the bot's webhook gets a chat_join_request (with
// user_chat_id, the user's private chat the bot may write to until the request is answered).
// approveChatJoinRequest makes the user a member, and Telegram then posts the chat_member update
// of the join (via_join_request); declineChatJoinRequest drops the request. Answering a request
// that is not pending is refused with Telegram's HIDE_REQUESTER_MISSING.
import { randomBytes } from "node:crypto";
import type { BotApiAnswer, SimulatedTelegramUser } from "./fake-telegram-stars.ts";
import type { SimulatedChats } from "./fake-telegram-chats.ts";

/** A join-request link the fake made. */
interface RequestLink {
  botId: number;
  chat: string;
  expireDate: number | null;
  revoked: boolean;
}

/** What the fake keeps of join requests; plain JSON (an embedded start's state file). */
export interface JoinRequestsSnapshot {
  links: [string, RequestLink][];
  /** Pending requests: "<bot>:<chat>:<user>" and the link each came through. */
  pending: [string, { user: SimulatedTelegramUser; link: string }][];
  /** "<bot>:<chat>:<user>" of the users let in by an approval. */
  members: string[];
}

export interface JoinRequestSource {
  chats: SimulatedChats;
  botUsername(botId: number): string;
  deliver(botId: number, type: string, body: Record<string, unknown>): Promise<{ update: Record<string, unknown>; delivered: boolean }>;
}

/** What a test (or the page) does as a Telegram user with a join-request link. */
export interface JoinRequestSimulator {
  /**
   * The user opens a join-request link and asks to join: the bot's webhook gets the
   * chat_join_request. Throws for a link the fake did not make as one; a revoked or expired link
   * answers `refused` (Telegram's "invite link is invalid or has expired").
   */
  requestToJoin(input: {
    link: string;
    user: SimulatedTelegramUser;
  }): Promise<{ update: Record<string, unknown> | null; delivered: boolean; refused?: string }>;
  /** The user in a chat of the bot: a member (approved), with a request pending, or neither. */
  telegramChatMemberState(botId: number, chat: string, userId: number): "member" | "requested" | "left";
}

export function telegramJoinRequests(source: JoinRequestSource) {
  const links = new Map<string, RequestLink>();
  const pending = new Map<string, { user: SimulatedTelegramUser; link: string }>();
  const members = new Set<string>();
  const key = (botId: number, chat: string, userId: number) => `${botId}:${chat}:${userId}`;
  const now = () => Math.floor(Date.now() / 1000);
  /** Updates Telegram posts after a call answered (the join after an approval), until delivered. */
  const posting = new Set<Promise<unknown>>();
  const linkObject = (botId: number, link: string, revoked = false) => ({
    invite_link: link,
    creator: { id: botId, is_bot: true, first_name: source.botUsername(botId), username: source.botUsername(botId) },
    creates_join_request: true,
    is_primary: false,
    is_revoked: revoked,
    ...(links.get(link)?.expireDate ? { expire_date: links.get(link)!.expireDate } : {}),
  });

  /** createChatInviteLink with creates_join_request: the link, or Telegram's refusal. */
  function createLink(botId: number, chat: string, params: Record<string, unknown>): BotApiAnswer {
    if (params.member_limit !== undefined)
      return { ok: false, description: "Bad Request: member_limit can't be specified for links that require approval" };
    const link = `https://t.me/+${randomBytes(12).toString("base64url")}`;
    links.set(link, { botId, chat, expireDate: params.expire_date !== undefined ? Number(params.expire_date) : null, revoked: false });
    return { ok: true, result: linkObject(botId, link) };
  }

  /** approveChatJoinRequest / declineChatJoinRequest. */
  function answer(botId: number, chat: string, userId: number, approve: boolean): BotApiAnswer {
    const at = key(botId, chat, userId);
    const request = pending.get(at);
    if (!request) return { ok: false, description: "Bad Request: HIDE_REQUESTER_MISSING" };
    pending.delete(at);
    if (!approve) return { ok: true, result: true };
    members.add(at);
    const member = (status: string) => ({ user: { is_bot: false, ...request.user }, status });
    const sent = source
      .deliver(botId, "chat_member", {
        chat: source.chats.chatObject(botId, chat),
        from: { is_bot: false, ...request.user },
        date: now(),
        old_chat_member: member("left"),
        new_chat_member: member("member"),
        invite_link: linkObject(botId, request.link),
        via_join_request: true,
      })
      .catch(() => undefined);
    posting.add(sent);
    void sent.finally(() => posting.delete(sent));
    return { ok: true, result: true };
  }

  const simulator: JoinRequestSimulator = {
    async requestToJoin({ link, user }) {
      const made = links.get(link);
      if (!made) throw new Error("the bot made no such join-request link");
      if (made.revoked || (made.expireDate !== null && made.expireDate <= now()))
        return { update: null, delivered: false, refused: "Telegram says: this invite link is invalid or has expired." };
      const at = key(made.botId, made.chat, user.id);
      if (members.has(at)) return { update: null, delivered: false, refused: `${user.first_name} is already a member of chat ${made.chat}.` };
      pending.set(at, { user, link });
      return source.deliver(made.botId, "chat_join_request", {
        chat: source.chats.chatObject(made.botId, made.chat),
        from: { is_bot: false, ...user },
        user_chat_id: user.id,
        date: now(),
        invite_link: linkObject(made.botId, link),
      });
    },
    telegramChatMemberState(botId, chat, userId) {
      const at = key(botId, chat, userId);
      return members.has(at) ? "member" : pending.has(at) ? "requested" : "left";
    },
  };

  return {
    createLink,
    answer,
    simulator,
    isRequestLink: (link: string) => links.has(link),
    /** revokeChatInviteLink of a join-request link: it admits no one from now on. */
    revoke(link: string) {
      const made = links.get(link);
      if (made) made.revoked = true;
    },
    /** banChatMember: the user is out of the chat. */
    removed(botId: number, chat: string, userId: number) {
      members.delete(key(botId, chat, userId));
    },
    async settled() {
      while (posting.size) await Promise.all([...posting]);
    },
    snapshot: (): JoinRequestsSnapshot => ({ links: [...links], pending: [...pending], members: [...members] }),
    restore(saved: JoinRequestsSnapshot | undefined) {
      saved?.links.forEach(([link, made]) => links.set(link, made));
      saved?.pending.forEach(([at, request]) => pending.set(at, request));
      saved?.members.forEach((at) => members.add(at));
    },
  };
}
