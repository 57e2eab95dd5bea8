// What every in-process benchmark app is given besides its own settings: the repository's
// connector packages, the local fake platforms (a benchmark never contacts an outside host), a
// throwaway app key and the portal's address.
import { randomBytes } from "node:crypto";
import { loadConnectorRegistry } from "../../src/modules/connectors/registry.ts";
import { openPlatforms } from "../../src/outside/platforms.ts";
import { DEFAULT_CONNECTORS_DIR, loadConfig } from "../../src/config.ts";

export async function benchAppDeps() {
  return {
    connectors: loadConnectorRegistry(DEFAULT_CONNECTORS_DIR),
    appKey: randomBytes(32),
    platforms: (await openPlatforms(loadConfig({}).platforms)).endpoints,
    portalUrl: "http://localhost:4005",
  };
}
