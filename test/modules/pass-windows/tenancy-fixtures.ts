// Tenancy fixtures of the Pass windows area (see test/tenancy/types.ts and
// ../resources/tenancy-support.ts): windows of a plan of the project.
import type { AreaFixtures, FixtureScope } from "../../tenancy/types.ts";
import { catalogFixture, rowExists, sellablePlan } from "../resources/tenancy-support.ts";

const windowBody = () => ({
  name: "Tenancy window",
  starts_at: new Date(Date.now() + 86_400_000).toISOString(),
  ends_at: new Date(Date.now() + 2 * 86_400_000).toISOString(),
});

async function windowIn(scope: FixtureScope, projectId: string) {
  const { project, plan } = await sellablePlan(scope, projectId);
  const res = await scope.rest.post(`/v1/projects/${project}/plans/${plan}/pass-windows`, windowBody());
  if (res.status !== 201) throw new Error(`pass window not created: ${JSON.stringify(res.body)}`);
  return { project, plan, pass_window: res.body.data.id as string };
}
const windowExists = ({ pass_window }: { pass_window: string }) => rowExists("pass_windows", pass_window);
const planExists = ({ plan }: { plan: string }) => rowExists("plans", plan);

export const tenancyFixtures: AreaFixtures = {
  list_pass_windows: catalogFixture(sellablePlan, planExists),
  create_pass_window: catalogFixture(sellablePlan, planExists, { body: windowBody }),
  get_pass_window: catalogFixture(windowIn, windowExists),
  update_pass_window: catalogFixture(windowIn, windowExists, { body: () => ({ capacity: 9 }) }),
  delete_pass_window: catalogFixture(windowIn, windowExists),
};
