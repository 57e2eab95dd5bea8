// The simulated Telegram's bot command menus (fake-platform.ts): setMyCommands, getMyCommands and
// deleteMyCommands as the Bot API takes them (https://core.telegram.org/bots/api#setmycommands):
// a list of at most 100 BotCommand (command: 1-32 of a-z, 0-9 and _; description: 1-256
// characters) per scope (BotCommandScope: default, all_private_chats, all_group_chats,
// all_chat_administrators, chat, chat_administrators, chat_member) and language_code. The menus
// are rebuilt from the recorded calls after a restart (replay), as every other state of the fake.
import { jsonParam } from "./fake-telegram-invoices.ts";

export interface BotCommand {
  command: string;
  description: string;
}

export interface CommandScope {
  type: string;
  chat_id?: string | number;
  user_id?: number;
}

type Outcome = { ok: true; result: unknown } | { ok: false; description: string };

const SCOPES_WITHOUT_CHAT = ["default", "all_private_chats", "all_group_chats", "all_chat_administrators"];
const SCOPES_WITH_CHAT = ["chat", "chat_administrators", "chat_member"];
const COMMAND = /^[a-z0-9_]{1,32}$/;

/** The scope's key (its type and ids), or a refusal as Telegram words it. */
function scopeKey(raw: unknown): string | { refused: string } {
  const scope = (raw === undefined ? { type: "default" } : jsonParam(raw)) as CommandScope | null;
  if (!scope || typeof scope !== "object" || typeof scope.type !== "string")
    return { refused: "Bad Request: can't parse BotCommandScope JSON object" };
  if (SCOPES_WITHOUT_CHAT.includes(scope.type)) return scope.type;
  if (!SCOPES_WITH_CHAT.includes(scope.type)) return { refused: "Bad Request: unsupported bot command scope type" };
  if (scope.chat_id === undefined || !/^(-?[0-9]+|@[A-Za-z0-9_]{5,})$/.test(String(scope.chat_id))) return { refused: "Bad Request: chat not found" };
  if (scope.type === "chat_member" && !Number.isInteger(Number(scope.user_id))) return { refused: "Bad Request: invalid user_id specified" };
  return `${scope.type}:${String(scope.chat_id)}${scope.type === "chat_member" ? `:${scope.user_id}` : ""}`;
}

/** The commands of a setMyCommands call, or a refusal. */
function commandList(raw: unknown): BotCommand[] | { refused: string } {
  const list = jsonParam(raw);
  if (!Array.isArray(list)) return { refused: "Bad Request: can't parse commands JSON object" };
  if (list.length > 100) return { refused: "Bad Request: too many commands specified" };
  const commands: BotCommand[] = [];
  for (const item of list as { command?: unknown; description?: unknown }[]) {
    const command = typeof item?.command === "string" ? item.command.replace(/^\//, "") : "";
    if (!COMMAND.test(command)) return { refused: "Bad Request: BOT_COMMAND_INVALID" };
    const description = typeof item.description === "string" ? item.description.trim() : "";
    if (!description || description.length > 256) return { refused: "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID" };
    commands.push({ command, description });
  }
  return commands;
}

/** The command menus of every bot of the simulation. */
export function telegramCommandMenus() {
  const menus = new Map<string, BotCommand[]>();
  const key = (botId: number, scope: string, language: unknown) => `${botId}|${scope}|${typeof language === "string" ? language : ""}`;

  /** The Bot API method's outcome, or null for a method that is not one of the menus'. */
  function method(name: string, botId: number, params: Record<string, unknown>): Outcome | null {
    if (!["setMyCommands", "getMyCommands", "deleteMyCommands"].includes(name)) return null;
    const scope = scopeKey(params.scope);
    if (typeof scope !== "string") return { ok: false, description: scope.refused };
    const at = key(botId, scope, params.language_code);
    if (name === "getMyCommands") return { ok: true, result: menus.get(at) ?? [] };
    if (name === "deleteMyCommands") {
      menus.delete(at);
      return { ok: true, result: true };
    }
    const commands = commandList(params.commands);
    if (!Array.isArray(commands)) return { ok: false, description: commands.refused };
    // An empty list is Telegram's way of deleting the menu too.
    if (commands.length) menus.set(at, commands);
    else menus.delete(at);
    return { ok: true, result: true };
  }

  return {
    method,
    /** The menu a scope shows (its exact scope, not the one Telegram would fall back to). */
    of: (botId: number, scope: CommandScope = { type: "default" }, language?: string): BotCommand[] => {
      const at = scopeKey(scope);
      return typeof at === "string" ? (menus.get(key(botId, at, language)) ?? []) : [];
    },
    /** Applies again the menu calls Telegram took (a restarted simulation's recorded calls). */
    replay(calls: readonly { name: string; bot: string | null; params: Record<string, unknown>; result?: unknown }[]) {
      for (const call of calls)
        if (call.result === true && call.bot && call.name !== "getMyCommands") method(call.name, Number(call.bot), call.params);
    },
  };
}
