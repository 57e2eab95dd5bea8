// Where the connector drivers reach their platforms. In production these are the real hosts
// (config); when the configuration is `simulated` (an embedded start with no platform URL set) the
// process serves the local fake platform on loopback and points every driver at it, so an embedded
// start never contacts an outside host.
import type { PlatformConfig } from "../../config.ts";
import { startFakePlatform, type FakePlatform } from "./fake-platform.ts";

/** What the drivers need: base URLs, the shared Discord application, the time-out. */
export type PlatformEndpoints = Omit<PlatformConfig, "simulated">;

export interface OpenedPlatforms {
  endpoints: PlatformEndpoints;
  /** For the start banner. */
  description: string;
  close(): Promise<void>;
}

/** The endpoints a fake platform serves (both platforms on one loopback address). */
export function fakePlatformEndpoints(fake: FakePlatform, timeoutMs = 5_000): PlatformEndpoints {
  return { telegramApiUrl: fake.url, discordApiUrl: fake.url, discord: fake.discordApplication, timeoutMs };
}

export async function openPlatforms(config: PlatformConfig): Promise<OpenedPlatforms> {
  const { simulated, ...endpoints } = config;
  if (!simulated) {
    return { endpoints, description: `Telegram ${config.telegramApiUrl}, Discord ${config.discordApiUrl}`, close: async () => {} };
  }
  // Any well-formed bot token and any Discord authorization code is accepted by the simulation.
  const fake = await startFakePlatform({ acceptAny: true });
  return {
    endpoints: fakePlatformEndpoints(fake, config.timeoutMs),
    description: `simulated on ${fake.url} (a Telegram user's view: ${fake.url}/_sim/telegram; set TELEGRAM_API_URL / DISCORD_API_URL to reach the real platforms)`,
    close: () => fake.close(),
  };
}
