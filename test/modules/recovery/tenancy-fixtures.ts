// Tenancy fixtures of the Recovery area (see test/tenancy/types.ts and ../resources/tenancy-support.ts).
// A project holds one setting per installation, so each fixture clears the project's settings
// before it makes (or lets the call make) one.
import type { AreaFixtures, FixtureScope } from "../../tenancy/types.ts";
import { catalogFixture, projectExists, rowExists } from "../resources/tenancy-support.ts";
import { installConnector } from "../resources/support.ts";
import { clearSettings, createSetting } from "./support.ts";

async function installedProject(scope: FixtureScope, projectId: string) {
  await installConnector(scope.owner, projectId);
  await clearSettings(projectId);
  return { project: projectId };
}

async function settingIn(scope: FixtureScope, projectId: string) {
  await installedProject(scope, projectId);
  const setting = await createSetting(scope.rest, projectId, { probes: { enabled: true } });
  return { project: projectId, recovery_setting: setting.id };
}
const settingExists = ({ recovery_setting }: { recovery_setting: string }) => rowExists("recovery_settings", recovery_setting);

export const tenancyFixtures: AreaFixtures = {
  list_recovery_settings: catalogFixture(installedProject, projectExists),
  create_recovery_setting: catalogFixture(installedProject, projectExists, {
    body: () => ({ connector: "telegram", probes: { enabled: true } }),
  }),
  get_recovery_setting: catalogFixture(settingIn, settingExists),
  update_recovery_setting: catalogFixture(settingIn, settingExists, { body: () => ({ probes: { interval_minutes: 30 } }) }),
  delete_recovery_setting: catalogFixture(settingIn, settingExists),
};
