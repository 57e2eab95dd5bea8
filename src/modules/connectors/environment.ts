// What the connector code needs of the process: the loaded packages, where the platforms are,
// the API's public address and APP_KEY (credentials are sealed with it).
import type { ConnectorRegistry } from "./registry.ts";
import type { PlatformEndpoints } from "../../config.ts";

export interface ConnectorEnvironment {
  connectors: ConnectorRegistry;
  /** The REST API's public address: platforms deliver a bot's updates under it. */
  baseUrl: string;
  /** The subscriber portal's public address: members of platforms with no start links enter there (platform-entry.ts). */
  portalUrl: string;
  platforms: PlatformEndpoints;
  appKey: Buffer;
}

/** What an installation's credentials are sealed to: nowhere else can they be opened. */
export const credentialsBinding = (installationId: string) => `connector_installations:${installationId}`;
