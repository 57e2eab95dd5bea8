// Tenancy fixtures of the Connectors area (see test/tenancy/types.ts).
import assert from "node:assert/strict";
import { expectReached } from "../../tenancy/callers.ts";
import type { AreaFixtures } from "../../tenancy/types.ts";

export const tenancyFixtures: AreaFixtures = {
  list_connectors: {
    // The catalog is the platform's, not a team's: B sees exactly what A sees, and none of A's ids.
    async probe({ teamA, a, b }) {
      const seenByB = expectReached(await b.call("list_connectors", { query: { per_page: 100 } }));
      assert.deepEqual(seenByB, expectReached(await a.call("list_connectors", { query: { per_page: 100 } })));
      assert.ok(seenByB.meta.total > 0, "the catalog is not empty");
      const text = JSON.stringify(seenByB);
      for (const id of [teamA.teamId, teamA.userId, ...teamA.projectIds]) assert.ok(!text.includes(id), `team A's ${id} is not in the catalog`);
    },
  },
};
