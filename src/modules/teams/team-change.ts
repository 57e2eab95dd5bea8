// A change on a team, written with the change: its activity entry (whose subject is the team) and,
// when the description names an event for it, its outbox event {team: {id, name}, ...data}.
import type { DomainContext } from "../../db/tenant.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { emitEvent } from "../events/outbox.ts";

export interface TeamChange {
  /** The activity entry's event name and description. */
  activity: string;
  description: string;
  properties: Record<string, unknown>;
  /** The webhook event type, when there is one, and what its data carries besides the team. */
  event?: string;
  data?: Record<string, unknown>;
}

export async function recordTeamChange(ctx: DomainContext, team: { id: string; name: string }, change: TeamChange): Promise<void> {
  await recordActivity(ctx, {
    event: change.activity,
    description: change.description,
    subjectType: "team",
    subjectId: team.id,
    properties: change.properties,
  });
  if (change.event) await emitEvent(ctx, { type: change.event, data: { team: { id: team.id, name: team.name }, ...change.data } });
}
