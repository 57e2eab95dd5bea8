// Tenancy fixtures of the Activity area (see test/tenancy/types.ts).
import { expectReached, expectRefused } from "../../tenancy/callers.ts";
import type { AreaFixtures } from "../../tenancy/types.ts";

export const tenancyFixtures: AreaFixtures = {
  get_activity_log: {
    async probe({ teamA, a, b, restricted }) {
      const [p1, p2] = teamA.projectIds as [string, string];
      const ofProject = (id: string) => ({ query: { subject_type: "project" as const, subject_id: id } });
      const ofTeam = { query: { subject_type: "team" as const, subject_id: teamA.teamId } };

      expectRefused(await b.call("get_activity_log", ofProject(p1)), ["RESOURCE_NOT_FOUND"]);
      expectRefused(await b.call("get_activity_log", ofTeam), ["RESOURCE_NOT_FOUND"]);
      expectReached(await a.call("get_activity_log", ofProject(p1)), "team A reads its project's activity");
      expectReached(await a.call("get_activity_log", ofTeam), "team A reads its team's activity");

      // A token restricted to P1 sees P1's activity only: not P2's, and not the team's.
      const r = await restricted(teamA, [p1]);
      expectReached(await r.call("get_activity_log", ofProject(p1)), "a token restricted to P1 reads P1's activity");
      expectRefused(await r.call("get_activity_log", ofProject(p2)), ["RESOURCE_NOT_FOUND"]);
      expectRefused(await r.call("get_activity_log", ofTeam), ["RESOURCE_NOT_FOUND"]);
    },
  },
};
