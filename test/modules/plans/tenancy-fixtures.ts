// Tenancy fixtures of the Plans area (see test/tenancy/types.ts and ../resources/tenancy-support.ts).
// Plans are publishable (the project has an enabled method), so publish's controls succeed.
import type { AreaFixtures } from "../../tenancy/types.ts";
import { catalogFixture, planBody, projectExists, readyProject, rowExists, sellablePlan } from "../resources/tenancy-support.ts";

const planExists = ({ plan }: { plan: string }) => rowExists("plans", plan);

export const tenancyFixtures: AreaFixtures = {
  list_plans: catalogFixture(readyProject, projectExists),
  create_plan: catalogFixture(readyProject, projectExists, { body: ({ project }) => planBody(project) }),
  get_plan: catalogFixture(sellablePlan, planExists),
  update_plan: catalogFixture(sellablePlan, planExists, { body: () => ({ trial_days: 3 }) }),
  delete_plan: catalogFixture(sellablePlan, planExists),
  publish_plan: catalogFixture(sellablePlan, planExists),
  archive_plan: catalogFixture(sellablePlan, planExists),
};
