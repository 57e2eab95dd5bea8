// A change to one of the team's settings (a role, a group): recorded as a team change whose entry
// and event carry the setting as the API shows it.
import type { DomainContext } from "../../db/tenant.ts";
import { recordTeamChange } from "./team-change.ts";
import { getCurrentTeam } from "./teams.ts";

/** A change to one of the team's settings (a role, a group), carried as the API shows it. */
export async function recordSettingChange(
  ctx: DomainContext,
  kind: "role" | "group",
  action: "created" | "updated" | "deleted",
  setting: { code: string },
): Promise<void> {
  await recordTeamChange(ctx, await getCurrentTeam(ctx), {
    activity: `${kind}_${action}`,
    description: `${kind === "role" ? "Role" : "Group"} ${setting.code} ${action}`,
    properties: { [kind]: setting },
    event: `${kind}.${action}`,
    data: { [kind]: setting },
  });
}
