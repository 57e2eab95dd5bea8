// The hostile properties of the routes the spec does not describe: the providers' routes and the
// portal's pages and forms, against one world (routes.test.ts at the fast tier's counts,
// routes.slow.test.ts at the full ones).
import { discordRouteProperties } from "./discord-properties.ts";
import { portalFormProperties } from "./portal-properties.ts";
import { providerRouteProperties } from "./provider-properties.ts";
import { useRouteWorld } from "./route-world.ts";
import { SEED, type RunCounts } from "./run.ts";

export function describeRouteHostile(counts: RunCounts): void {
  describe(`hostile input to the providers' routes and the portal (${counts.perFamily} runs per route and family, ${counts.oversized} oversized, seed ${SEED})`, function () {
    this.timeout(600_000);
    const world = useRouteWorld();
    providerRouteProperties(world, counts);
    discordRouteProperties(world, counts);
    portalFormProperties(world, counts);
  });
}
