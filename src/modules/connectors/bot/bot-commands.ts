// The commands the Telegram bot answers in a private chat, as data: the member commands every chat
// is offered, and the creator commands (issue 46) with the management command each implements (its
// manifest id, also accepted as the command: `/access_codes_generate` is `/codes`) and the ability
// a linked creator needs for it. The updates route answers them (creator-commands.ts) and
// setMyCommands advertises them (platform-tasks.ts), so one list decides both. No imports: the
// platform tasks read it without pulling in the areas the answers use.

/** Telegram's BotCommand: 1-32 of a-z, 0-9 and _, and a description of 1-256 characters. */
export interface BotCommandLine {
  command: string;
  description: string;
}

export interface CreatorCommandSpec {
  /** What a creator types: `/stats`. */
  name: string;
  /** The manifest's management_commands id it implements (an alias of the name); null when the enum has none. */
  id: string | null;
  /** The ability a linked creator needs on the installation's project (admin.ts, adminOf). */
  ability: string;
  /** Its line in /help and in the bot's command menu. */
  help: string;
  /** How to call it, when it takes arguments. */
  usage?: string;
}

/** The commands every private chat is offered (Telegram's all_private_chats scope). */
export const MEMBER_COMMANDS: readonly BotCommandLine[] = [
  { command: "start", description: "See the plans and your access" },
  { command: "cancel", description: "Cancel your membership at the end of its period" },
  { command: "help", description: "What this bot can do" },
];

/**
 * The linked creator's commands, in the order /help lists them. A command is added here and in
 * the answers of creator-commands.ts together (a test checks every one answers).
 */
export const CREATOR_COMMANDS: readonly CreatorCommandSpec[] = [
  { name: "stats", id: null, ability: "dashboard:read", help: "Team: active members, MRR and today's failed payments" },
  {
    name: "reply",
    id: "support_reply",
    ability: "support-conversation:update",
    help: "Team: answer a member's support conversation",
    usage: "/reply <conversation> <your answer> (or reply to a relayed message)",
  },
  {
    name: "codes",
    id: "access_codes_generate",
    ability: "project-access-code:create",
    help: "Team: generate access codes for a plan",
    usage: "/codes <plan number> [how many, up to 20]",
  },
  { name: "recovery", id: "recovery_status", ability: "project-recovery:view-any", help: "Team: the bot's recovery settings and last probes" },
  { name: "tasks", id: "creator_tasks", ability: "project-subscription:view-any", help: "Team: open creator tasks (hand-overs)" },
  {
    name: "broadcast",
    id: "broadcast",
    ability: "broadcast:send",
    help: "Team: message every member with a live membership (previewed, then confirmed)",
    usage: '/broadcast <your message>, then reply "yes" to the preview',
  },
];

/** The creator command a message names, by name or by management command id; undefined for any other. */
export function creatorCommandNamed(word: string): CreatorCommandSpec | undefined {
  const lower = word.toLowerCase();
  return CREATOR_COMMANDS.find((c) => c.name === lower || c.id === lower);
}

/** The menu lines of these creator commands after the member commands (a chat scope replaces all_private_chats). */
export function commandMenu(creatorCommands: readonly CreatorCommandSpec[]): BotCommandLine[] {
  return [...MEMBER_COMMANDS, ...creatorCommands.map((c) => ({ command: c.name, description: c.help }))];
}
