// The drivers by connector key, built from the platform endpoints the deployment uses.
import type { PlatformEndpoints } from "../../../config.ts";
import type { ConnectorDriver } from "./driver.ts";
import { discordDriver } from "./discord.ts";
import { telegramDriver } from "./telegram.ts";

/** The driver of a connector, or undefined when this release has none for it (the connector is then not installable). */
/**
 * The connectors whose bot is this deployment's one application (Discord): their OAuth installs
 * store no credential, and the application's bot writes to anyone who shares a server with it.
 */
export const APPLICATION_BOT_CONNECTORS: readonly string[] = ["discord"];

export function driverFor(key: string, platforms: PlatformEndpoints): ConnectorDriver | undefined {
  switch (key) {
    case "telegram":
      return telegramDriver({ apiUrl: platforms.telegramApiUrl, timeoutMs: platforms.timeoutMs });
    case "discord":
      return discordDriver({
        apiUrl: platforms.discordApiUrl,
        timeoutMs: platforms.timeoutMs,
        application: platforms.discord,
        ...(platforms.rateLimits ? { rateLimits: platforms.rateLimits } : {}),
      });
    default:
      return undefined;
  }
}
