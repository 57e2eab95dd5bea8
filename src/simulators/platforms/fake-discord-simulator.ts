// What tests and the embedded start's tools do to the simulated Discord through FakePlatform
// (fake-platform.ts): its application, servers, channels, roles, members, rate limits and signed
// interactions, mapped onto the simulation's parts (fake-discord.ts).
import type { createFakeDiscord } from "./fake-discord.ts";
import type { SentInteraction, SimulatedInteraction } from "./fake-discord-interactions.ts";
import { DISCORD_BOT } from "./fake-discord-roles.ts";

export interface DiscordSimulator {
  /** The shared Discord application the fake accepts; `publicKey` verifies the interactions it sends. */
  readonly discordApplication: { clientId: string; clientSecret: string; botToken: string; publicKey: string };
  /** Posts a member's slash command (or a PING) to the interactions endpoint `url`, signed as Discord signs; `timestamp` (Unix seconds) for a stale one. */
  sendDiscordInteraction(url: string, interaction: SimulatedInteraction, options?: { timestamp?: number }): Promise<SentInteraction>;
  /** The signature headers Discord would send `body` with (hostile tests sign bodies of their own). */
  signDiscordInteraction(body: Buffer | string, timestamp?: number): { "x-signature-ed25519": string; "x-signature-timestamp": string };
  /** What the endpoint last wrote to an interaction's answer through its token (a deferred answer's follow-up); null when nothing yet. */
  discordInteractionAnswer(token: string): string | null;
  /** The server's slash commands as the bot last registered them. */
  discordCommands(guild: string): unknown[];
  /** An OAuth code that adds the bot to `guild` (single use, as Discord's are). */
  addDiscordAuthorization(code: string, guild: { id: string; name: string }): void;
  /** The channel belongs to the guild (GET /channels/{c} answers its guild_id); `null` deletes it. */
  setDiscordChannel(channel: string, guild: string | null): void;
  /** The bot is taken out of the guild (GET /guilds/{g} answers 403). */
  removeDiscordBot(guild: string): void;
  /** The Discord bot's user and the role Discord made for it in every guild. */
  readonly discordBot: { userId: string; roleId: string };
  /**
   * The role exists in the guild at `position` (the bot's role is at 10) with `permissions` (a
   * decimal bit set; the bot's role has Manage Roles by default); `null` deletes it. The bot's own
   * role (discordBot.roleId) can be moved or stripped the same way.
   */
  setDiscordRole(guild: string, role: string, placed: { position: number; permissions?: string; managed?: boolean } | null): void;
  /**
   * The Discord bot's next `times` calls answer 429 with retry_after `seconds` (Discord's body and
   * X-RateLimit-Scope; `global`: the bot's global limit). Every bot call also carries its bucket's
   * X-RateLimit-* headers, and one past the bucket's limit is answered 429 (fake-discord-limits.ts).
   */
  throttleDiscord(times: number, seconds: number, options?: { global?: boolean }): void;
  /** Every Discord bucket's size from now on (`null`: 50 calls a second). */
  setDiscordRateLimit(bucket: { limit: number; resetAfterSeconds: number } | null): void;
  /** How many Discord calls were answered 429 so far (throttled or past their bucket). */
  discordThrottled(): number;
  /** The guild's members the simulation knows, by user id, with the roles each holds. */
  discordMembers(guild: string): { user: string; roles: string[] }[];
  /** Someone gives (or takes) a role by hand in Discord: the user is a member of the guild from now on. */
  setDiscordMemberRole(guild: string, user: string, role: string, held: boolean): void;
  /** The direct messages the bot sent `user`, oldest first. */
  discordDms(user: string): string[];
}

export function discordSimulator(discord: ReturnType<typeof createFakeDiscord>): DiscordSimulator {
  return {
    discordApplication: discord.application,
    addDiscordAuthorization: discord.addAuthorization,
    setDiscordChannel: discord.setChannel,
    removeDiscordBot: discord.removeBot,
    discordBot: DISCORD_BOT,
    setDiscordRole: discord.setRole,
    throttleDiscord: discord.limits.throttle,
    setDiscordRateLimit: discord.limits.setLimit,
    discordThrottled: discord.limits.answered429,
    sendDiscordInteraction: discord.sendInteraction,
    signDiscordInteraction: discord.signInteraction,
    discordInteractionAnswer: discord.interactionAnswer,
    discordCommands: discord.commandsOf,
    discordMembers: (guild: string) => discord.people.list(guild).map((m) => ({ user: m.user.id, roles: m.roles })),
    setDiscordMemberRole: (guild: string, user: string, role: string, held: boolean) => void discord.people.setRole(guild, user, role, held),
    discordDms: (user: string) => discord.people.dms(user).map((m) => m.content),
  };
}
