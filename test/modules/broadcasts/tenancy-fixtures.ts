// Tenancy fixtures of the Broadcasts area (see test/tenancy/types.ts). Every route is under
// /v1/projects/{project}: a fixture makes a scheduled broadcast in a project running Telegram (inside
// the allow-list when asked), and "outside" is the same in a project outside it.
import type { AreaFixtures, FixtureScope } from "../../tenancy/types.ts";
import { catalogFixture, projectExists, rowExists } from "../resources/tenancy-support.ts";
import { installConnector } from "../resources/support.ts";

const later = () => new Date(Date.now() + 24 * 3600_000).toISOString();

async function telegramProject(scope: FixtureScope, projectId: string) {
  await installConnector(scope.owner, projectId);
  return { project: projectId };
}

async function broadcastIn(scope: FixtureScope, projectId: string) {
  await installConnector(scope.owner, projectId);
  const res = await scope.rest.post(`/v1/projects/${projectId}/broadcasts`, { text: "Tomorrow", send_at: later() });
  if (res.status !== 201) throw new Error(`broadcast not created: ${JSON.stringify(res.body)}`);
  return { project: projectId, broadcast: res.body.data.id as string };
}
/** A project holding a broadcast, so a list that leaked would show a row. */
async function projectWithBroadcast(scope: FixtureScope, projectId: string) {
  await broadcastIn(scope, projectId);
  return { project: projectId };
}
const broadcastExists = ({ broadcast }: { broadcast: string }) => rowExists("broadcasts", broadcast);

export const tenancyFixtures: AreaFixtures = {
  list_broadcasts: catalogFixture(projectWithBroadcast, projectExists),
  create_broadcast: catalogFixture(telegramProject, projectExists, { body: () => ({ text: "Hello", send_at: later() }) }),
  get_broadcast: catalogFixture(broadcastIn, broadcastExists),
  list_broadcast_recipients: catalogFixture(broadcastIn, broadcastExists),
  cancel_broadcast: catalogFixture(broadcastIn, broadcastExists),
};
