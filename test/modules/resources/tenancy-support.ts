// Tenancy fixtures of the catalog areas (resources, payment methods, plans, pass windows, coupons):
// every route is under /v1/projects/{project}, so a fixture makes its row in a project (inside the
// allow-list when asked) and the "outside" shape is the same row in a project outside it.
import { randomUUID } from "node:crypto";
import { testDatabase } from "../../helpers/backends.ts";
import type { FixtureScope, PathFixture, PathParams } from "../../tenancy/types.ts";
import { createResource, installConnector, setUpPaymentMethod } from "./support.ts";

export function catalogFixture<Params extends PathParams>(
  make: (scope: FixtureScope, projectId: string) => Promise<Params>,
  exists: (params: Params) => Promise<boolean>,
  extra: Partial<PathFixture<keyof Params & string>> = {},
): PathFixture<keyof Params & string> {
  return {
    create: (scope, within) => make(scope, within?.[0] ?? scope.owner.projectIds[0]!),
    async outside(scope, allowList) {
      const elsewhere = scope.owner.projectIds.find((p) => !allowList.includes(p))!;
      return [await make(scope, elsewhere)];
    },
    exists: (_scope, params) => exists(params as Params),
    ...extra,
  };
}

export async function rowExists(table: string, id: string | undefined): Promise<boolean> {
  return (await (await testDatabase()).db(table).where({ id }).first("id")) !== undefined;
}

/** Resources made for a project by the fixtures, so a body can name one of the project's. */
const resourceOf = new Map<string, string>();

/** A project with Telegram installed and a perk (remembered for bodies naming resources). */
export async function readyProject(scope: FixtureScope, projectId: string): Promise<{ project: string }> {
  await installConnector(scope.owner, projectId);
  if (!resourceOf.has(projectId)) resourceOf.set(projectId, (await createResource(scope.rest, projectId)).id);
  return { project: projectId };
}

export function perkOf(projectId: string): string {
  const id = resourceOf.get(projectId);
  if (!id) throw new Error(`no perk made for ${projectId}: call readyProject first`);
  return id;
}

/** A draft plan of the project that can be published (an enabled EUR monthly method exists). */
export async function sellablePlan(scope: FixtureScope, projectId: string): Promise<{ project: string; plan: string }> {
  await readyProject(scope, projectId);
  await setUpPaymentMethod(scope.owner, projectId, { currencies: ["EUR"], billing_cycles: ["month"] });
  const res = await scope.rest.post(`/v1/projects/${projectId}/plans`, planBody(projectId));
  if (res.status !== 201) throw new Error(`plan not created: ${JSON.stringify(res.body)}`);
  return { project: projectId, plan: res.body.data.id };
}

export function planBody(projectId: string) {
  return { name: `Plan ${randomUUID()}`, price: { amount: 500, currency: "EUR" }, billing_cycle: "month" as const, resources: [perkOf(projectId)] };
}

export const projectExists = ({ project }: { project: string }) => rowExists("projects", project);
