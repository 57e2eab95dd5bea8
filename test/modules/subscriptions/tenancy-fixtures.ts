// Tenancy fixtures of the Subscriptions area (see test/tenancy/types.ts). Subscriptions belong to a
// project: a token restricted to other projects reaches none of them.
import assert from "node:assert/strict";
import { testDatabase } from "../../helpers/backends.ts";
import type { TestCreator } from "../../helpers/fixtures.ts";
import { expectReached } from "../../tenancy/callers.ts";
import type { AreaFixtures, FixtureScope, PathFixture } from "../../tenancy/types.ts";
import { subscribedMember } from "./commerce.ts";

/** The index of the first project of `within` (the owner's first project without one). */
export const projectIndex = (owner: TestCreator, within?: readonly string[]) => (within ? owner.projectIds.indexOf(within[0]!) : 0);

/** Project indexes of the owner's projects outside `allowList`. */
export const outsideIndexes = (owner: TestCreator, allowList: readonly string[]) =>
  owner.projectIds.map((id, i) => (allowList.includes(id) ? -1 : i)).filter((i) => i >= 0);

export async function rowExists(table: string, id: string): Promise<boolean> {
  return (await (await testDatabase()).db(table).where({ id }).first("id")) !== undefined;
}

const subscriptionFixture: PathFixture<"subscription"> = {
  async create({ owner }, within) {
    return { subscription: (await subscribedMember(owner, { projectIndex: projectIndex(owner, within) })).subscription.id };
  },
  async outside({ owner }: FixtureScope, allowList) {
    return Promise.all(
      outsideIndexes(owner, allowList).map(async (i) => ({ subscription: (await subscribedMember(owner, { projectIndex: i })).subscription.id })),
    );
  },
  exists: (_scope, { subscription }) => rowExists("subscriptions", subscription),
};

export const tenancyFixtures: AreaFixtures = {
  get_subscription: subscriptionFixture,
  cancel_subscription: subscriptionFixture,
  extend_subscription: { ...subscriptionFixture, body: () => ({ days: 1 }) },
  list_subscriptions: {
    async probe({ a, b, teamA, restricted }) {
      const inP1 = await subscribedMember(teamA, { projectIndex: 0 });
      const ids = (result: { data: { id: string }[] }) => result.data.map((s) => s.id);
      const seenByA = ids(expectReached(await a.call("list_subscriptions", { query: { per_page: 100 } })));
      assert.ok(seenByA.includes(inP1.subscription.id), "team A sees its subscription");
      assert.ok(
        !ids(expectReached(await b.call("list_subscriptions", { query: { per_page: 100 } }))).includes(inP1.subscription.id),
        "team B does not",
      );
      const byPlan = expectReached(await b.call("list_subscriptions", { query: { plan_id: inP1.plan.planId } }));
      assert.equal(byPlan.meta.total, 0, "team B filtering on A's plan sees nothing");
      const onlyP2 = await restricted(teamA, [teamA.projectIds[1]!]);
      assert.ok(
        !ids(expectReached(await onlyP2.call("list_subscriptions", { query: { per_page: 100 } }))).includes(inP1.subscription.id),
        "a token restricted to P2 does not see P1's",
      );
    },
  },
};
