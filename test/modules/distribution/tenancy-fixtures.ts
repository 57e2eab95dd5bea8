// Tenancy fixtures of the Distribution area (see test/tenancy/types.ts). Both routes name a
// project, so a project allow-list narrows them (`outside`: the team's project outside it).
import type { AreaFixtures, FixtureScope, PathFixture } from "../../tenancy/types.ts";
import { ensureTelegram, newProject, projectExists } from "../connectors/support.ts";

const projectFixture: PathFixture<"project"> = {
  // A project with a bot attached, so the deep link can be answered.
  async create(scope: FixtureScope, within?: readonly string[]) {
    const project = within?.[0] ?? (await newProject(scope.owner));
    await ensureTelegram(scope.rest, project);
    return { project };
  },
  async outside(scope, allowList) {
    const project = scope.owner.projectIds.find((p) => !allowList.includes(p))!;
    await ensureTelegram(scope.rest, project);
    return [{ project }];
  },
  exists: async (_scope, { project }) => projectExists(project),
};

export const tenancyFixtures: AreaFixtures = {
  get_deep_link: projectFixture,
  get_portal_url: projectFixture,
};
