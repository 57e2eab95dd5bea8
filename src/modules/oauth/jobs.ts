// The OAuth area's scheduled jobs (the worker in src/workers/jobs finds them here).
//
// oauth.purge-expired deletes what can no longer be used nor tell anything, a day after it stopped
// working (the day keeps a replayed code or refresh token recognised, so it still revokes its
// family, for a while after its own expiry):
// - authorization codes expired more than a day ago (they live a minute);
// - access tokens expired more than a day ago (they live an hour; a family revocation marks the
//   live ones, the expired ones are refused by their date anyway);
// - refresh tokens expired more than a day ago, only in families with no live refresh token left:
//   a live connection keeps its rotated tokens, so presenting one of them again still revokes it.
// - clients registered more than a day ago with no code or token left: never used within a day of
//   registering, or every connection dead (a refresh token lives 30 days from its last use, so
//   that is a month without use). Registration is anonymous, so without this its table only grows;
//   a client whose id was purged registers again, as MCP clients do when the server forgets them.
// Tokens belong to a team, but deleting dead credentials is no change of the team's: no activity
// entry and no event.
import { unscoped } from "../../db/tenant.ts";
import { deleteInBatches } from "../../db/purge.ts";
import type { ScheduledJob } from "../jobs/scheduled-job.ts";

/** How long a code or token is kept past its expiry. */
export const EXPIRED_GRANT_KEPT_MS = 24 * 3600_000;

export const purgeExpiredGrants: ScheduledJob = {
  name: "oauth.purge-expired",
  cron: "27 * * * *",
  description:
    "Deletes OAuth codes and access tokens expired more than a day ago, refresh tokens of connections with none left alive, and clients older than a day with no code or token left.",
  async run({ db, now }) {
    const grants = unscoped(db, "a job clears expired OAuth codes and tokens of every team");
    const cutoff = new Date(now.getTime() - EXPIRED_GRANT_KEPT_MS);
    const codes = await deleteInBatches(grants, "oauth_authorization_codes", "code_hash", (q) => q.where("expires_at", "<=", cutoff));
    const accessTokens = await deleteInBatches(grants, "oauth_access_tokens", "id", (q) => q.where("expires_at", "<=", cutoff));
    const refreshTokens = await deleteInBatches(grants, "oauth_refresh_tokens", "token_hash", (q) =>
      q
        .where("expires_at", "<=", cutoff)
        .whereNotExists(
          grants("oauth_refresh_tokens as live")
            .whereRaw("live.family_id = oauth_refresh_tokens.family_id")
            .where("live.status", "active")
            .where("live.expires_at", ">", now),
        ),
    );
    const unused = (table: string) => grants(table).whereRaw(`${table}.client_id = oauth_clients.client_id`);
    const clients = await deleteInBatches(grants, "oauth_clients", "client_id", (q) =>
      q
        .where("created_at", "<=", cutoff)
        // The dashboard's client is the deployment's own: registered at start, kept while it runs.
        .where("first_party", false)
        .whereNotExists(unused("oauth_authorization_codes"))
        .whereNotExists(unused("oauth_access_tokens"))
        .whereNotExists(unused("oauth_refresh_tokens")),
    );
    return { changed: codes + accessTokens + refreshTokens + clients };
  },
};

export const scheduledJobs: ScheduledJob[] = [purgeExpiredGrants];
