// The account area's scheduled jobs (the worker in src/workers/jobs finds them here).
//
// account.purge-expired: browser sessions past their expiry (the session store already ignores
// them; the rows would only pile up) and sign-ups whose link expired or was used more than a day
// ago. The day keeps "this link was already used" and "this link has expired" answerable for a
// person who opens the mail again soon after; afterwards the link is simply unknown. A sign-up row
// holds a password hash: it should not outlive its purpose. Identity links (a creator linking a
// platform account through a bot) go by the same day after they expire (a used one expires ten
// minutes after it was made anyway), and so do password resets (a link lives an hour; the row says
// who asked). People's rows, not a team's: no activity entry and no event.
import { unscoped } from "../../db/tenant.ts";
import { deleteInBatches } from "../../db/purge.ts";
import type { ScheduledJob } from "../jobs/scheduled-job.ts";

/** How long a spent or expired sign-up link stays explainable. */
export const SPENT_SIGN_UP_KEPT_MS = 24 * 3600_000;

export const purgeExpiredAccountRows: ScheduledJob = {
  name: "account.purge-expired",
  cron: "7 * * * *",
  description:
    "Deletes expired browser sessions, and sign-ups, identity links and password resets whose link expired or was used more than a day ago.",
  async run({ db, now }) {
    const people = unscoped(db, "sessions and sign-ups belong to people, not teams: a job clears the spent ones");
    const cutoff = new Date(now.getTime() - SPENT_SIGN_UP_KEPT_MS);
    const sessions = await deleteInBatches(people, "auth_sessions", "key_hash", (q) => q.where("expires_at", "<=", now));
    const signUps = await deleteInBatches(people, "account_sign_ups", "id", (q) =>
      q.where((w) => w.where("expires_at", "<=", cutoff).orWhere("completed_at", "<=", cutoff)),
    );
    const links = await deleteInBatches(people, "identity_link_tokens", "id", (q) => q.where("expires_at", "<=", cutoff));
    const resets = await deleteInBatches(people, "password_resets", "token_hash", (q) => q.where("expires_at", "<=", cutoff));
    return { changed: sessions + signUps + links + resets };
  },
};

export const scheduledJobs: ScheduledJob[] = [purgeExpiredAccountRows];
