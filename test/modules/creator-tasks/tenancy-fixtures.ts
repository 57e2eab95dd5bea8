// Tenancy fixtures of the Creator tasks area (see test/tenancy/types.ts). Tasks belong to a project.
import type { AreaFixtures } from "../../tenancy/types.ts";
import type { TestCreator } from "../../helpers/fixtures.ts";
import { subscribedMember } from "../subscriptions/commerce.ts";
import { outsideIndexes, projectIndex, rowExists } from "../subscriptions/tenancy-fixtures.ts";

async function taskIn(owner: TestCreator, index: number) {
  const { plan, tasks } = await subscribedMember(owner, { projectIndex: index });
  return { project: plan.projectId, creator_task: tasks[0]!.id };
}

export const tenancyFixtures: AreaFixtures = {
  list_creator_tasks: {
    create: async ({ owner }, within) => ({ project: owner.projectIds[projectIndex(owner, within)]! }),
    outside: async ({ owner }, allowList) => outsideIndexes(owner, allowList).map((i) => ({ project: owner.projectIds[i]! })),
    exists: (_scope, { project }) => rowExists("projects", project),
  },
  complete_creator_task: {
    create: ({ owner }, within) => taskIn(owner, projectIndex(owner, within)),
    outside: ({ owner }, allowList) => Promise.all(outsideIndexes(owner, allowList).map((i) => taskIn(owner, i))),
    exists: (_scope, { creator_task }) => rowExists("creator_tasks", creator_task),
  },
};
