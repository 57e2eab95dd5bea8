// An installation's platform session: its driver, opened with its sealed install fields.
import { createHmac } from "node:crypto";
import { decrypt } from "../../../security/crypto.ts";
import { driverFor } from "../drivers/index.ts";
import type { PlatformSession } from "../drivers/driver.ts";
import { credentialsBinding } from "../environment.ts";
import type { ConnectorEnvironment } from "../environment.ts";
import type { InstallationRow } from "../tables.ts";

/** What opening a session needs of an installation (a platform task keeps these of one it outlives). */
export type SessionSource = Pick<InstallationRow, "id" | "connector_key" | "credentials" | "platform_account_id">;

export function installationSession(env: Pick<ConnectorEnvironment, "platforms" | "appKey">, installation: SessionSource): PlatformSession {
  const driver = driverFor(installation.connector_key, env.platforms);
  if (!driver) throw new Error(`no driver for the connector ${installation.connector_key}`);
  const fields = installation.credentials
    ? (JSON.parse(decrypt(env.appKey, installation.credentials, credentialsBinding(installation.id))) as Record<string, string | boolean>)
    : {};
  return driver.session({ fields, accountId: installation.platform_account_id });
}

/** Where a platform delivers an installation's updates (the REST surface serves it). */
export const updatesPath = (connector: string, installation: string) => `/connectors/${connector}/${installation}/updates`;

export function updatesUrl(baseUrl: string, installation: Pick<InstallationRow, "connector_key" | "id">): string {
  return `${baseUrl.replace(/\/+$/, "")}${updatesPath(installation.connector_key, installation.id)}`;
}

/**
 * The secret a platform sends with an installation's updates (Telegram: secret_token, 1-256 of
 * A-Za-z0-9_-): an HMAC of the installation id under APP_KEY, so nothing is stored and one
 * installation's secret opens nothing else.
 */
export function updatesSecret(appKey: Buffer, installationId: string): string {
  return createHmac("sha256", appKey).update(`connector-updates:${installationId}`).digest("base64url");
}
