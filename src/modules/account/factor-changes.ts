// Who changes a creator's second factors, and the record each change leaves. Factors belong to the
// person, so their rows are reached without tenant filters; the activity entry goes to the team
// the session acts on (a creator in no team has no activity log to write to).
import { createDomainContext, unscoped, type Db } from "../../db/tenant.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { alertFactorChange } from "../alerts/producers.ts";

export interface FactorOwner {
  db: Db;
  userId: string;
  /** The team the signed-in session acts on, or null. */
  teamId: string | null;
  requestId: string | null;
  appKey: Buffer;
  now: Date;
}

/** The person's own second-factor rows (no team owns them). */
export const factorTables = (db: Db) => unscoped(db, "a creator's second factors: owned by the person, not a team");

/** The change's activity entry, written in the change's transaction `trx`. */
export async function recordFactorChange(
  trx: Db,
  owner: FactorOwner,
  event: string,
  description: string,
  properties: Record<string, unknown> = {},
): Promise<void> {
  // The person hears of every change to how they sign in, whatever team the session acts on.
  await alertFactorChange(trx, owner.now, owner.userId, description);
  if (!owner.teamId) return;
  const ctx = createDomainContext(
    trx,
    { userId: owner.userId, teamId: owner.teamId, projectIds: null, kind: "human", credentialKind: "session", requestId: owner.requestId },
    owner.now,
  );
  await recordActivity(ctx, { event, description, subjectType: "creator", subjectId: owner.userId, properties });
}
