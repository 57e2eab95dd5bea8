// An installation's platform session: its driver, opened with its sealed install fields.
import { decrypt } from "../../../security/crypto.ts";
import { driverFor } from "../drivers/index.ts";
import type { PlatformSession } from "../drivers/driver.ts";
import { credentialsBinding, type ConnectorEnvironment } from "../installations.ts";
import type { InstallationRow } from "../tables.ts";

export function installationSession(env: Pick<ConnectorEnvironment, "platforms" | "appKey">, installation: InstallationRow): PlatformSession {
  const driver = driverFor(installation.connector_key, env.platforms);
  if (!driver) throw new Error(`no driver for the connector ${installation.connector_key}`);
  const fields = installation.credentials
    ? (JSON.parse(decrypt(env.appKey, installation.credentials, credentialsBinding(installation.id))) as Record<string, string | boolean>)
    : {};
  return driver.session({ fields, accountId: installation.platform_account_id });
}
