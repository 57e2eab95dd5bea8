// The platform settings of the configuration (src/config.ts): where the connector drivers reach
// Telegram and Discord, the platform's shared Discord application, and the call time-out. A bad
// value is a one-line ConfigError naming the variable.
import { ConfigError, milliseconds, url, type Env } from "./config-values.ts";
import type { DiscordRateLimits } from "./modules/connectors/drivers/discord-rate-limits.ts";

/**
 * The platforms' HTTP APIs the connector drivers call. `simulated`: no base URL was set and the
 * database is embedded, so `npm start` serves a local fake of both platforms on loopback and points
 * the drivers at it (an embedded start never contacts an outside host); set TELEGRAM_API_URL or
 * DISCORD_API_URL to reach the real platforms from an embedded start.
 */
/**
 * What the drivers need: base URLs, the shared Discord application, the time-out, and where Discord's
 * rate limits are shared (the process's KV store, set by main; a process counts its own without it).
 */
export type PlatformEndpoints = Omit<PlatformConfig, "simulated"> & {
  rateLimits?: DiscordRateLimits;
  /** A sandbox's simulated Telegram page (…/_sim/telegram), where its portal sends members instead of t.me. */
  telegramSimulatorPage?: string;
};

export interface PlatformConfig {
  /** TELEGRAM_API_URL, default https://api.telegram.org (the Bot API: <url>/bot<token>/<method>). */
  telegramApiUrl: string;
  /** DISCORD_API_URL, default https://discord.com/api/v10. */
  discordApiUrl: string;
  /** The platform's shared Discord application (DISCORD_CLIENT_ID, _CLIENT_SECRET, _BOT_TOKEN, _PUBLIC_KEY); null = not configured. */
  discord: DiscordApplication | null;
  /** PLATFORM_TIMEOUT_MS, default 10000: how long one platform call may take. */
  timeoutMs: number;
  simulated: boolean;
}

/** The shared Discord application: OAuth client, bot, and the public key that proves its interactions. */
export interface DiscordApplication {
  clientId: string;
  clientSecret: string;
  botToken: string;
  /** 64 hexadecimal characters (the raw 32-byte Ed25519 key, as the developer portal shows it). */
  publicKey: string;
}

export const DEFAULT_TELEGRAM_API_URL = "https://api.telegram.org";
export const DEFAULT_DISCORD_API_URL = "https://discord.com/api/v10";

export function platformConfig(env: Env): PlatformConfig {
  const timeout = milliseconds(env, "PLATFORM_TIMEOUT_MS", 10_000, 100, 120_000);
  const discordParts = [env.DISCORD_CLIENT_ID, env.DISCORD_CLIENT_SECRET, env.DISCORD_BOT_TOKEN, env.DISCORD_PUBLIC_KEY];
  const [clientId, clientSecret, botToken, publicKey] = discordParts as string[];
  if (discordParts.some(Boolean) && !discordParts.every(Boolean))
    throw new ConfigError(
      "DISCORD_CLIENT_ID, DISCORD_CLIENT_SECRET, DISCORD_BOT_TOKEN and DISCORD_PUBLIC_KEY are set together (the platform's Discord application)",
    );
  if (env.DISCORD_PUBLIC_KEY && !/^[0-9a-fA-F]{64}$/.test(env.DISCORD_PUBLIC_KEY))
    throw new ConfigError("DISCORD_PUBLIC_KEY must be the application's public key as the developer portal shows it: 64 hexadecimal characters");
  return {
    telegramApiUrl: url(env, "TELEGRAM_API_URL", DEFAULT_TELEGRAM_API_URL),
    discordApiUrl: url(env, "DISCORD_API_URL", DEFAULT_DISCORD_API_URL),
    discord: discordParts.every(Boolean)
      ? { clientId: clientId!, clientSecret: clientSecret!, botToken: botToken!, publicKey: publicKey!.toLowerCase() }
      : null,
    timeoutMs: timeout,
    simulated: !env.DATABASE_URL && !env.TELEGRAM_API_URL && !env.DISCORD_API_URL,
  };
}
