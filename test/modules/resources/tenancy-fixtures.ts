// Tenancy fixtures of the Resources area (see test/tenancy/types.ts and ./tenancy-support.ts).
import type { AreaFixtures, FixtureScope } from "../../tenancy/types.ts";
import { createResource } from "./support.ts";
import { catalogFixture, projectExists, readyProject, rowExists } from "./tenancy-support.ts";

async function resourceIn(scope: FixtureScope, projectId: string) {
  await readyProject(scope, projectId);
  return { project: projectId, resource: (await createResource(scope.rest, projectId)).id };
}
const resourceExists = ({ resource }: { resource: string }) => rowExists("resources", resource);

export const tenancyFixtures: AreaFixtures = {
  list_resources: catalogFixture(readyProject, projectExists),
  create_resource: catalogFixture(readyProject, projectExists, { body: () => ({ kind: "perk", title: "Tenancy perk" }) }),
  get_resource: catalogFixture(resourceIn, resourceExists),
  update_resource: catalogFixture(resourceIn, resourceExists, { body: () => ({ title: "Renamed perk" }) }),
  delete_resource: catalogFixture(resourceIn, resourceExists),
};
