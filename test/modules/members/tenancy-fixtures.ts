// Tenancy fixtures of the Members area (see test/tenancy/types.ts). Members belong to a project.
import { banMember } from "../../../src/modules/members/ban.ts";
import type { AreaFixtures, FixtureScope, PathFixture } from "../../tenancy/types.ts";
import { asDomain, subscribedMember } from "../subscriptions/commerce.ts";
import { outsideIndexes, projectIndex, rowExists } from "../subscriptions/tenancy-fixtures.ts";

async function memberIn(owner: FixtureScope["owner"], index: number, banned: boolean) {
  const { member, plan } = await subscribedMember(owner, { projectIndex: index });
  if (banned) await asDomain(owner, (ctx) => banMember(ctx, plan.projectId, member.id, {}));
  return { project: plan.projectId, member: member.id };
}

const memberFixture = (banned = false, extra: Partial<PathFixture<"project" | "member">> = {}): PathFixture<"project" | "member"> => ({
  create: ({ owner }, within) => memberIn(owner, projectIndex(owner, within), banned),
  outside: ({ owner }, allowList) => Promise.all(outsideIndexes(owner, allowList).map((i) => memberIn(owner, i, banned))),
  exists: (_scope, { member }) => rowExists("members", member),
  ...extra,
});

const projectFixture: PathFixture<"project"> = {
  create: async ({ owner }, within) => ({ project: owner.projectIds[projectIndex(owner, within)]! }),
  outside: async ({ owner }, allowList) => outsideIndexes(owner, allowList).map((i) => ({ project: owner.projectIds[i]! })),
  exists: (_scope, { project }) => rowExists("projects", project),
};

export const tenancyFixtures: AreaFixtures = {
  list_subscribers: projectFixture,
  export_members: projectFixture,
  get_member: memberFixture(),
  ban_member: memberFixture(false, { body: () => ({ reason: "tenancy" }) }),
  unban_member: memberFixture(true),
  sync_member_access: memberFixture(),
};
