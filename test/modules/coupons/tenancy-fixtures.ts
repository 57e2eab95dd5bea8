// Tenancy fixtures of the Coupons area (see test/tenancy/types.ts and ../resources/tenancy-support.ts).
import { randomUUID } from "node:crypto";
import type { AreaFixtures, FixtureScope } from "../../tenancy/types.ts";
import { catalogFixture, projectExists, rowExists } from "../resources/tenancy-support.ts";

const couponBody = () => ({ code: `T-${randomUUID().slice(0, 8)}`, percent_off: 15 });

async function couponIn(scope: FixtureScope, projectId: string) {
  const res = await scope.rest.post(`/v1/projects/${projectId}/coupons`, couponBody());
  if (res.status !== 201) throw new Error(`coupon not created: ${JSON.stringify(res.body)}`);
  return { project: projectId, coupon: res.body.data.id as string };
}
const couponExists = ({ coupon }: { coupon: string }) => rowExists("coupons", coupon);

export const tenancyFixtures: AreaFixtures = {
  list_coupons: catalogFixture(async (_scope, project) => ({ project }), projectExists),
  create_coupon: catalogFixture(async (_scope, project) => ({ project }), projectExists, { body: couponBody }),
  get_coupon: catalogFixture(couponIn, couponExists),
  update_coupon: catalogFixture(couponIn, couponExists, { body: () => ({ active: false }) }),
  delete_coupon: catalogFixture(couponIn, couponExists),
};
