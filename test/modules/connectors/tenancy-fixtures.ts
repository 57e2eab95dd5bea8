// Tenancy fixtures of the Connectors area (see test/tenancy/types.ts). Installations belong to a
// project, so a project allow-list narrows them (`outside`: the team's project outside it).
import assert from "node:assert/strict";
import { expectReached } from "../../tenancy/callers.ts";
import type { AreaFixtures, FixtureScope, PathFixture } from "../../tenancy/types.ts";
import { newTelegramBot } from "../../helpers/platforms.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { ensureTelegram, installationRow, newProject, projectExists, removeInstallation, seedRemovalHold } from "./support.ts";

/** The project a fixture works on: inside `within` when given, else a new project of the team. */
const projectFor = async ({ owner }: FixtureScope, within?: readonly string[]) => within?.[0] ?? (await newProject(owner));
const outsideProject = ({ owner }: FixtureScope, allowList: readonly string[]) => owner.projectIds.find((p) => !allowList.includes(p))!;

/** An installation of Telegram on a project of the team (the path of every installation route). */
const installationFixture = (extra: Partial<PathFixture<"project" | "connector">> = {}): PathFixture<"project" | "connector"> => ({
  async create(scope, within) {
    const project = await projectFor(scope, within);
    await ensureTelegram(scope.rest, project);
    return { project, connector: "telegram" };
  },
  async outside(scope, allowList) {
    const project = outsideProject(scope, allowList);
    await ensureTelegram(scope.rest, project);
    return [{ project, connector: "telegram" }];
  },
  exists: async (_scope, { project }) => (await installationRow(project)) !== undefined,
  ...extra,
});

/** An open mass-removal hold on a Telegram installation of a project of the team (confirm and cancel). */
const holdFixture: PathFixture<"project" | "connector" | "removal_hold"> = {
  async create(scope, within) {
    // The owner's own second project (each hold gates a perk of its own): the matrix's teams stay within their tier's projects.
    const project = within?.[0] ?? scope.owner.projectIds[1]!;
    return { project, connector: "telegram", removal_hold: (await seedRemovalHold(scope.rest, project)).id };
  },
  async outside(scope, allowList) {
    const project = outsideProject(scope, allowList);
    return [{ project, connector: "telegram", removal_hold: (await seedRemovalHold(scope.rest, project)).id }];
  },
  // A refused decision leaves the hold open.
  exists: async (_scope, { removal_hold }) => {
    const { db } = await testDatabase();
    return (await db("connector_removal_holds").where({ id: removal_hold, status: "held" }).first("id")) !== undefined;
  },
};

/** Bot tokens registered for the install fixture, by project (the body is built without waiting). */
const botTokens = new Map<string, string>();
async function readyToInstall(project: string) {
  await removeInstallation(project);
  botTokens.set(project, (await newTelegramBot("tenancy")).token);
  return { project, connector: "telegram" };
}

export const tenancyFixtures: AreaFixtures = {
  list_connectors: {
    // The catalog is the platform's, not a team's: B sees exactly what A sees, and none of A's ids.
    async probe({ teamA, a, b }) {
      const seenByB = expectReached(await b.call("list_connectors", { query: { per_page: 100 } }));
      assert.deepEqual(seenByB, expectReached(await a.call("list_connectors", { query: { per_page: 100 } })));
      assert.ok(seenByB.meta.total > 0, "the catalog is not empty");
      const text = JSON.stringify(seenByB);
      for (const id of [teamA.teamId, teamA.userId, ...teamA.projectIds]) assert.ok(!text.includes(id), `team A's ${id} is not in the catalog`);
    },
  },
  list_project_connectors: {
    async create(scope, within) {
      const project = await projectFor(scope, within);
      await ensureTelegram(scope.rest, project);
      return { project };
    },
    async outside(scope, allowList) {
      const project = outsideProject(scope, allowList);
      await ensureTelegram(scope.rest, project);
      return [{ project }];
    },
    exists: async (_scope, { project }) => projectExists(project),
  },
  install_connector: {
    create: async (scope, within) => readyToInstall(await projectFor(scope, within)),
    outside: async (scope, allowList) => [await readyToInstall(outsideProject(scope, allowList))],
    // A refused install leaves the project without an installation (the project itself stays).
    exists: async (_scope, { project }) => (await projectExists(project)) && !(await installationRow(project)),
    body: ({ project }) => ({ fields: { bot_token: botTokens.get(project)! } }),
  },
  get_project_connector: installationFixture(),
  list_connector_chats: installationFixture(),
  update_project_connector: installationFixture({ body: () => ({ settings: { language: "de" } }) }),
  uninstall_connector: installationFixture(),
  list_removal_holds: installationFixture(),
  confirm_removal_hold: holdFixture,
  cancel_removal_hold: holdFixture,
};
