// How the commerce expiry jobs sweep every team: the due rows are found across teams (the one
// unscoped read, naming its reason), then each team's are changed in its own transaction as the
// system actor at the job's clock, so a failure in one team leaves the others' changes standing.
import { createDomainContext, systemActor, unscoped, type DomainContext } from "../../db/tenant.ts";
import type { JobRun } from "../jobs/scheduled-job.ts";

export async function sweepTeams(
  job: JobRun,
  due: { table: string; where: (q: any) => void },
  work: (ctx: DomainContext, ids: string[]) => Promise<number>,
): Promise<{ changed: number }> {
  const everyTeam = unscoped(job.db, "a job finds due rows of every team before acting per team");
  const rows = (await everyTeam(due.table).where(due.where).select("id", "team_id")) as { id: string; team_id: string }[];
  const byTeam = new Map<string, string[]>();
  for (const row of rows) byTeam.set(row.team_id, [...(byTeam.get(row.team_id) ?? []), row.id]);
  let changed = 0;
  for (const [teamId, ids] of byTeam) {
    changed += await job.db.transaction((trx) => work(createDomainContext(trx, systemActor(teamId), job.now), ids));
  }
  return { changed };
}
