// A change to one of the team's settings (a role, a group): its activity entry, whose subject is the
// team, and its outbox event {team: {id, name}, <kind>: the setting as the API shows it}, written
// in the change's transaction.
import type { DomainContext } from "../../db/tenant.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { emitEvent } from "../events/outbox.ts";
import { getCurrentTeam } from "./teams.ts";

export async function recordSettingChange(
  ctx: DomainContext,
  kind: "role" | "group",
  action: "created" | "updated" | "deleted",
  setting: { code: string },
): Promise<void> {
  const team = await getCurrentTeam(ctx);
  const label = kind === "role" ? "Role" : "Group";
  await recordActivity(ctx, {
    event: `${kind}_${action}`,
    description: `${label} ${setting.code} ${action}`,
    subjectType: "team",
    subjectId: team.id,
    properties: { [kind]: setting },
  });
  await emitEvent(ctx, { type: `${kind}.${action}`, data: { team: { id: team.id, name: team.name }, [kind]: setting } });
}
