// Tenancy fixtures of the Teams area (see test/tenancy/types.ts).
import assert from "node:assert/strict";
import { expectReached } from "../../tenancy/callers.ts";
import type { AreaFixtures } from "../../tenancy/types.ts";

export const tenancyFixtures: AreaFixtures = {
  get_current_team: {
    // "Current" is the token's team: nothing names another team, so each token sees its own.
    async probe({ teamA, teamB, a, b, restricted }) {
      assert.equal(expectReached(await b.call("get_current_team")).data.id, teamB.teamId);
      assert.equal(expectReached(await a.call("get_current_team")).data.id, teamA.teamId);
      const r = await restricted(teamA, [teamA.projectIds[0]!]);
      assert.equal(expectReached(await r.call("get_current_team")).data.id, teamA.teamId);
    },
  },
};
