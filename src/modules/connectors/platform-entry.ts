// The portal addresses of a member's sign-in through the platform's own OAuth (Discord), which has
// no start links: an installation's entry is its bot_url (deep links add ?start=<payload>), and the
// platform sends the member back to one fixed callback per connector, registered with the platform's
// application. The portal serves both (src/apps/portal/platform-sign-in.ts).
import type { InstallationRow } from "./tables.ts";

const trimmed = (portalUrl: string) => portalUrl.replace(/\/+$/, "");

export const platformCallbackPath = (connector: string) => `/connectors/${connector}/callback`;
export const platformCallbackUrl = (portalUrl: string, connector: string) => `${trimmed(portalUrl)}${platformCallbackPath(connector)}`;
export const platformEntryUrl = (portalUrl: string, installation: Pick<InstallationRow, "connector_key" | "id">) =>
  `${trimmed(portalUrl)}/connectors/${installation.connector_key}/${installation.id}`;
