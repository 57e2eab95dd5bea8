// The Discord bot's slash commands, in Discord's application command shape: the one list both the
// registration after an install (the driver's bulk overwrite of the server's commands) and the
// interactions endpoint (src/apps/api/discord-interactions.ts) read, so a command is never offered
// that nothing answers, nor answered without being offered.

/** Discord's option types: 3 a string, 4 an integer. */
const STRING = 3;
const INTEGER = 4;

export interface DiscordCommandOption {
  type: typeof STRING | typeof INTEGER;
  name: string;
  description: string;
  required: boolean;
  max_length?: number;
  min_value?: number;
}

export interface DiscordCommand {
  name: string;
  description: string;
  /** Discord's type 1: a slash command (CHAT_INPUT). */
  type: 1;
  options: DiscordCommandOption[];
  /** Guild commands only: they are registered per server, and DMs carry no server to answer for. */
  contexts: [0];
}

const text = (name: string, description: string, maxLength: number): DiscordCommandOption => ({
  type: STRING,
  name,
  description,
  required: true,
  max_length: maxLength,
});

const command = (name: string, description: string, options: DiscordCommandOption[] = []): DiscordCommand => ({
  name,
  description,
  type: 1,
  options,
  contexts: [0],
});

/** Every command the bot answers, as PUT /applications/{app}/guilds/{guild}/commands takes them. */
export const DISCORD_COMMANDS: readonly DiscordCommand[] = [
  command("subscribe", "See the plans of this community and where to join"),
  command("status", "See your access and when your membership renews"),
  // As Telegram's /cancel: without a number it lists what cancelling does, with one it cancels that subscription.
  command("cancel", "Cancel your membership at the end of its period", [
    { type: INTEGER, name: "number", description: "The subscription's number from /cancel", required: false, min_value: 1 },
  ]),
  command("redeem", "Redeem an access code", [text("code", "The access code you were given", 100)]),
  command("support", "Send a message to the team of this community", [text("message", "Your message", 2000)]),
  command("reply", "Team only: answer a member's support conversation", [
    text("conversation", "The conversation's id", 36),
    text("message", "Your answer", 2000),
  ]),
];
