// The community chats the simulated Telegram knows by name (fake-platform.ts): the ones a person
// added the bot to on the simulator page ("Add the bot to a chat"). Adding the bot does what
// Telegram does when a chat's admin makes a bot an administrator: the bot's webhook gets a
// my_chat_member update (from left to administrator, able to invite users and restrict members),
// and from then on getChat answers the chat's title and type. A chat the simulation does not know
// by name is still one the bot administers (the fake's default), titled "Chat <id>".
import { randomInt } from "node:crypto";
import { escape } from "html-escaper";

export type SimulatedChatType = "group" | "supergroup" | "channel";

export interface SimulatedChat {
  botId: number;
  /** Telegram's numeric id as a string ("-100" and ten digits for a supergroup or channel). */
  id: string;
  title: string;
  type: SimulatedChatType;
}

const CHAT_TYPES: readonly SimulatedChatType[] = ["supergroup", "channel", "group"];
const CHAT_ID = /^-[0-9]{1,16}$/;

/** The chats known by name, by bot; `snapshot`/`restore` carry them across an embedded start's restarts. */
export function simulatedChats() {
  const chats = new Map<string, SimulatedChat>();
  const key = (botId: number, id: string) => `${botId}:${id}`;
  return {
    remember: (chat: SimulatedChat) => void chats.set(key(chat.botId, chat.id), chat),
    of: (botId: number, id: string): SimulatedChat | undefined => chats.get(key(botId, id)),
    ofBot: (botId: number): SimulatedChat[] => [...chats.values()].filter((chat) => chat.botId === botId),
    /** Telegram's Chat object of a community chat, as updates and getChat carry it. */
    chatObject(botId: number, id: string) {
      const known = chats.get(key(botId, id));
      return { id: Number(id), type: known?.type ?? "supergroup", title: known?.title ?? `Chat ${id}` };
    },
    snapshot: (): SimulatedChat[] => [...chats.values()],
    restore: (saved: readonly SimulatedChat[] | undefined) => saved?.forEach((chat) => chats.set(key(chat.botId, chat.id), chat)),
  };
}

export type SimulatedChats = ReturnType<typeof simulatedChats>;

/** The page's form that adds the bot to a chat as an administrator (a chat's title, its id optional). */
export function addChatForm(botId: number): string {
  const types = CHAT_TYPES.map((type) => `<option value="${type}">${type}</option>`).join("");
  return `<h3 id="add-chat-${botId}">Add the bot to a chat</h3>
<form method="post" action="/_sim/telegram/add-chat" aria-labelledby="add-chat-${botId}"><input type="hidden" name="bot" value="${botId}"><div class="grid">
<label>Chat<input name="title" required maxlength="128" placeholder="Night Owls VIP"></label>
<label>Chat id (optional)<input name="chat_id" inputmode="numeric" pattern="-[0-9]{1,16}" placeholder="-1001234567890"></label>
<label>Type<select name="type">${types}</select></label>
<button>Add the bot to a chat</button></div></form>`;
}

/** What adding the bot needs of the fake: its chats, the bot's standing there, and how updates reach the bot. */
export interface AddChatSource {
  chats: SimulatedChats;
  botUsername(botId: number): string;
  botStatus(botId: number, chat: string): "administrator" | "member" | "kicked";
  setBotStatus(botId: number, chat: string, status: "administrator"): void;
  deliver(botId: number, type: string, body: Record<string, unknown>): Promise<{ delivered: boolean }>;
}

/**
 * The "Add the bot to a chat" form: the chat is remembered (an id like -100xxxxxxxxxx is made when
 * none is given), the bot becomes its administrator, and its webhook gets Telegram's my_chat_member
 * update. Answers the page's notice, or a refusal (ok false) for a form that names no chat.
 */
export async function addBotToChat(source: AddChatSource, botId: number, params: Record<string, unknown>): Promise<{ ok: boolean; notice: string }> {
  const title = String(params.title ?? "").trim();
  const given = String(params.chat_id ?? "").trim();
  const type = CHAT_TYPES.find((t) => t === params.type) ?? "supergroup";
  if (!title || title.length > 128) return { ok: false, notice: "Name the chat (a title of up to 128 characters)." };
  if (given && !CHAT_ID.test(given)) return { ok: false, notice: "A chat id is negative digits, like -1001234567890 (or leave it empty)." };
  let id = given;
  while (!id || (!given && source.chats.of(botId, id))) id = `-100${randomInt(1_000_000_000, 10_000_000_000)}`;
  const before = source.chats.of(botId, id) ? source.botStatus(botId, id) : "left";
  source.chats.remember({ botId, id, title, type });
  source.setBotStatus(botId, id, "administrator");
  const bot = { id: botId, is_bot: true, first_name: source.botUsername(botId), username: source.botUsername(botId) };
  const { delivered } = await source.deliver(botId, "my_chat_member", {
    chat: source.chats.chatObject(botId, id),
    from: { id: 1, is_bot: false, first_name: "A chat admin" },
    date: Math.floor(Date.now() / 1000),
    old_chat_member: { user: bot, status: before },
    new_chat_member: {
      user: bot,
      status: "administrator",
      can_be_edited: false,
      is_anonymous: false,
      can_manage_chat: true,
      can_delete_messages: true,
      can_manage_video_chats: true,
      can_restrict_members: true,
      can_promote_members: false,
      can_change_info: true,
      can_invite_users: true,
      can_post_stories: false,
      can_edit_stories: false,
      can_delete_stories: false,
      ...(type === "channel" ? { can_post_messages: true, can_edit_messages: true } : { can_pin_messages: true, can_manage_topics: false }),
    },
  });
  const said = `The bot is an administrator of ${type} "${title}" (${id}).`;
  return { ok: true, notice: delivered ? said : `${said} The bot's webhook did not take the update.` };
}

/** A chat's heading on the page: its title when the simulation knows it, and its id. */
export function chatHeading(chats: SimulatedChats, botId: number, id: string): string {
  const known = chats.of(botId, id);
  return known ? `${escape(known.title)} (${escape(id)})` : escape(id);
}
