// Tenancy fixtures of the Transactions area (see test/tenancy/types.ts): the list lives under
// /v1/projects/{project}, so the matrix sends another team's project and one outside an allow-list.
import type { AreaFixtures } from "../../tenancy/types.ts";
import { catalogFixture, projectExists } from "../resources/tenancy-support.ts";

export const tenancyFixtures: AreaFixtures = {
  list_transactions: catalogFixture(async (_scope, project) => ({ project }), projectExists),
  export_transactions: catalogFixture(async (_scope, project) => ({ project }), projectExists),
};
