// Tenancy fixtures of the Payment methods area (see test/tenancy/types.ts and
// ../resources/tenancy-support.ts). Methods are set up by the provider setup's domain function.
import type { AreaFixtures, FixtureScope } from "../../tenancy/types.ts";
import { setUpPaymentMethod } from "../resources/support.ts";
import { catalogFixture, projectExists, rowExists } from "../resources/tenancy-support.ts";

async function methodIn(scope: FixtureScope, projectId: string) {
  return { project: projectId, payment_method: (await setUpPaymentMethod(scope.owner, projectId)).id };
}
const methodExists = ({ payment_method }: { payment_method: string }) => rowExists("payment_methods", payment_method);

export const tenancyFixtures: AreaFixtures = {
  list_payment_methods: catalogFixture(async (_scope, project) => ({ project }), projectExists),
  get_payment_method: catalogFixture(methodIn, methodExists),
  update_payment_method: catalogFixture(methodIn, methodExists, { body: () => ({ name: "Renamed method" }) }),
  delete_payment_method: catalogFixture(methodIn, methodExists),
};
