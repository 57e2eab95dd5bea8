// Tenancy fixtures of the Access codes area (see test/tenancy/types.ts). Codes belong to a plan of
// a project.
import type { AreaFixtures, PathFixture } from "../../tenancy/types.ts";
import type { TestCreator } from "../../helpers/fixtures.ts";
import { generateAccessCodes } from "../../../src/modules/access-codes/codes.ts";
import { asDomain, seedPlan } from "../subscriptions/commerce.ts";
import { outsideIndexes, projectIndex, rowExists } from "../subscriptions/tenancy-fixtures.ts";

async function planIn(owner: TestCreator, index: number) {
  const plan = await seedPlan(owner, { projectIndex: index });
  return { project: plan.projectId, plan: plan.planId };
}

async function codeIn(owner: TestCreator, index: number) {
  const { project, plan } = await planIn(owner, index);
  const batch = await asDomain(owner, (ctx) => generateAccessCodes(ctx, project, plan, { quantity: 1 }));
  return { project, plan, access_code: batch.codes[0]!.id };
}

const planFixture = (extra: Partial<PathFixture<"project" | "plan">> = {}): PathFixture<"project" | "plan"> => ({
  create: ({ owner }, within) => planIn(owner, projectIndex(owner, within)),
  outside: ({ owner }, allowList) => Promise.all(outsideIndexes(owner, allowList).map((i) => planIn(owner, i))),
  exists: (_scope, { plan }) => rowExists("plans", plan),
  ...extra,
});

export const tenancyFixtures: AreaFixtures = {
  list_access_codes: planFixture(),
  bulk_generate_access_codes: planFixture({ body: () => ({ quantity: 1 }) }),
  delete_access_code: {
    create: ({ owner }, within) => codeIn(owner, projectIndex(owner, within)),
    outside: ({ owner }, allowList) => Promise.all(outsideIndexes(owner, allowList).map((i) => codeIn(owner, i))),
    exists: (_scope, { access_code }) => rowExists("access_codes", access_code),
  },
};
