// The agent-registration area's scheduled jobs (the worker in src/workers/jobs finds them here).
//
// agent-registrations.purge-expired deletes registrations whose claim token expired more than a
// day ago, whatever their state: unconfirmed, ended by wrong codes, confirmed but never collected,
// or collected (the token they minted lives on by itself in personal_access_tokens, kind
// agent_registration, and is listed and deleted there). Within the day an agent polling late still
// hears expired_token rather than invalid_claim_token. The rate limits per address and per email
// count in the KV store, not these rows.
import { unscoped } from "../../db/tenant.ts";
import { deleteInBatches } from "../../db/purge.ts";
import type { ScheduledJob } from "../jobs/scheduled-job.ts";

/** How long a registration is kept past its claim token's expiry. */
export const ENDED_REGISTRATION_KEPT_MS = 24 * 3600_000;

export const purgeEndedRegistrations: ScheduledJob = {
  name: "agent-registrations.purge-expired",
  cron: "47 * * * *",
  description: "Deletes agent registrations whose claim token expired more than a day ago.",
  async run({ db, now }) {
    const rows = unscoped(db, "agent registrations belong to no team until confirmed: a job clears the ended ones");
    const cutoff = new Date(now.getTime() - ENDED_REGISTRATION_KEPT_MS);
    return { changed: await deleteInBatches(rows, "agent_registrations", "id", (q) => q.where("claim_expires_at", "<=", cutoff)) };
  },
};

export const scheduledJobs: ScheduledJob[] = [purgeEndedRegistrations];
