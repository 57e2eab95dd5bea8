// Tenancy fixtures of the Analytics area (see test/tenancy/types.ts). A project's numbers live under
// /v1/projects/{project}; the team's numbers add up only the projects the token may see.
import assert from "node:assert/strict";
import { expectReached } from "../../tenancy/callers.ts";
import type { AreaFixtures } from "../../tenancy/types.ts";
import { catalogFixture, projectExists } from "../resources/tenancy-support.ts";
import { subscribedMember } from "../subscriptions/commerce.ts";

const planIds = (result: { data: { plans: { plan_id: string }[] } }) => result.data.plans.map((p) => p.plan_id);

export const tenancyFixtures: AreaFixtures = {
  get_project_analytics: catalogFixture(async (_scope, project) => ({ project }), projectExists),
  get_team_analytics: {
    async probe({ a, b, teamA, restricted }) {
      const inP1 = await subscribedMember(teamA, { projectIndex: 0 });
      const seenByA = expectReached(await a.call("get_team_analytics", {}), "team A reads its numbers");
      assert.ok(planIds(seenByA).includes(inP1.plan.planId), "team A's numbers count its plan");
      assert.ok(seenByA.data.members.active >= 1);
      assert.ok(!planIds(expectReached(await b.call("get_team_analytics", {}))).includes(inP1.plan.planId), "team B's numbers do not");
      const onlyP2 = await restricted(teamA, [teamA.projectIds[1]!]);
      assert.ok(
        !planIds(expectReached(await onlyP2.call("get_team_analytics", {}))).includes(inP1.plan.planId),
        "a token restricted to P2 does not count P1's plan",
      );
    },
  },
};
