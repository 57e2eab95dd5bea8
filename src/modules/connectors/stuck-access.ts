// When a platform will not follow the access ledger (access-sync.ts). A grant whose platform call
// failed waits before its next try (a minute, doubling to an hour, or the platform's own Retry-After),
// so a refused place never holds up other members' access in the sweep. The people concerned hear of
// it: the member who is owed access is told once that it is delayed and that the creator knows, and
// the team's owner and admins get a recovery alert naming the place, the platform's words and what
// to mend. A refusal needs a person at once; a platform that does not answer only after some tries.
// When access is given after such a notice, a member without an invite link (a role, a channel's
// permission) is told that it works now; an invite link is its own news.
// A ban the platform will not apply waits the same way, and the creator is alerted that the banned
// member may still be inside (once a day per project), with what to mend and to remove them by hand.
import type { Knex } from "knex";
import { createDomainContext, systemActor, type Db, type DomainContext } from "../../db/tenant.ts";
import { alertStuckAccess, alertStuckBan } from "../alerts/producers.ts";
import { membersTable } from "../members/tables.ts";
import { queueBotMessage } from "../bot-messages/outbox.ts";
import { phrase } from "../bot-messages/phrases.ts";
import { botMessagesTable } from "../bot-messages/tables.ts";
import { grantsTable, PLATFORM_FAILURES_CLEARED } from "../subscriptions/tables.ts";
import type { PlatformError, PlatformErrorKind } from "./drivers/driver.ts";
import { platformName } from "./platform-name.ts";
import { mention, queueLogLine } from "./log-channel.ts";
import type { InstallationRow } from "./tables.ts";

/** What the sweep knows of a grant it could not sync. */
export interface StuckItem {
  grant_id: string;
  resource_id: string;
  member_id: string;
  team_id: string;
  project_id: string;
  grant_mode: string;
  status: "pending" | "revoked";
  place: string | null;
  title: string;
  user: string | null;
  member_status: string;
  platform_attempts: number;
  installation: InstallationRow;
}

/** What the sweep knows of a banned member whose ban it could not apply. */
export interface StuckBan {
  id: string;
  team_id: string;
  project_id: string;
  user: string | null;
  platform_attempts: number;
  installation: InstallationRow;
}

const FIRST_RETRY_MS = 60_000;
const LAST_RETRY_MS = 3_600_000;
/** Failures no retry mends by itself: a person must act. */
const NEEDS_A_PERSON: ReadonlySet<PlatformErrorKind> = new Set(["refused", "unauthorized", "unsupported", "not_configured"]);
/** A platform that does not answer (or keeps throttling) is reported after this many tries in a row (about an hour). */
const SILENT_TRIES = 6;
/** Failures after which the bot cannot reach the member either. */
const BOT_MUTED: ReadonlySet<PlatformErrorKind> = new Set(["unauthorized", "not_configured"]);

/** When the grant is tried again after its `attempts`th failure in a row. */
export function nextTry(now: Date, attempts: number, err: PlatformError): Date {
  const backoff = Math.min(LAST_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1));
  return new Date(now.getTime() + (err.kind === "rate_limited" && err.retryAfterMs !== null ? err.retryAfterMs : backoff));
}

/** What the creator mends, in the words of the platform's settings. */
function remedy(item: StuckItem, err: PlatformError): string {
  const connector = item.installation.connector_key;
  const platform = platformName(connector);
  const bot = item.installation.platform_account_name ? `@${item.installation.platform_account_name}` : "the bot";
  const place = item.place ?? "(none)";
  const orPlace = `or, if the ${platform} place changed, correct the resource's platform_ref (PATCH /v1/projects/${item.project_id}/resources/${item.resource_id}).`;
  switch (err.kind) {
    case "unauthorized":
      return connector === "telegram"
        ? `Telegram refuses ${bot}'s token: make a new one in @BotFather and give it to SubBridge (PATCH /v1/projects/${item.project_id}/connectors/telegram with fields.bot_token).`
        : `${platform} refuses the bot's access: install the ${platform} connector again.`;
    case "not_configured":
      return `This deployment has no ${platform} application set up: its operator must configure one.`;
    case "unsupported":
      return `${platform} cannot give a ${item.grant_mode} grant: give the resource "${item.title}" a kind ${platform} supports.`;
    case "refused":
      if (connector === "telegram")
        return `Make ${bot} an administrator of the chat ${place} with the rights to invite users and to ban users, ${orPlace}`;
      if (item.grant_mode === "role")
        return `In the server's role settings, give the SubBridge role Manage Roles and drag it above the role ${place} (a role managed by an integration, a bot's or the booster role, no one can give: gate with one of your own), ${orPlace}`;
      return `Let the SubBridge bot manage the channel ${place} (Manage Channels and Manage Roles in its permission overrides), ${orPlace}`;
    default:
      return `Nothing on your side unless it lasts: ${platform} has not answered ${item.platform_attempts + 1} tries in a row.`;
  }
}

/**
 * Records a failed platform call for the grant in `item` and, when a person must know, queues the
 * creator's alert and the member's notice (each once), all in one transaction.
 */
export async function recordSyncFailure(db: Db, item: StuckItem, err: PlatformError, now: Date): Promise<void> {
  await noteFailure(
    db,
    now,
    err,
    { table: grantsTable, id: item.grant_id, teamId: item.team_id, attempts: item.platform_attempts },
    async (ctx, retryAt) => {
      const platform = platformName(item.installation.connector_key);
      await alertStuckAccess(ctx, {
        projectId: item.project_id,
        resourceId: item.resource_id,
        title: item.title,
        memberId: item.member_id,
        giving: item.status === "pending",
        platform,
        refusal: err.description ?? err.message,
        remedy: remedy(item, err),
        retryAt,
      });
      await queueLogLine(
        ctx,
        item.installation,
        `Could not ${item.status === "pending" ? "give" : "take"} ${item.title} ${item.status === "pending" ? "to" : "from"} ${mention(item.user)}: ${err.description ?? err.message}`,
        { type: "access_grant", id: item.grant_id },
        `log-failure:${item.status}:${item.grant_id}`,
      );
      if (item.status === "pending" && item.user && item.member_status !== "banned" && !BOT_MUTED.has(err.kind))
        await queueBotMessage(ctx, {
          installation: item.installation,
          recipient: item.user,
          phrases: [
            phrase(
              NEEDS_A_PERSON.has(err.kind)
                ? "Your membership is active, but I could not give you access to {resource} yet: {platform} refused. The creator has been told, and you get it as soon as it works; you need not do anything."
                : "Your membership is active, but I could not give you access to {resource} yet: {platform} is not answering. The creator has been told, and you get it as soon as it works; you need not do anything.",
              { resource: item.title, platform },
            ),
          ],
          purpose: "notice",
          subject: { type: "access_grant", id: item.grant_id },
          dedupeKey: delayedKey(item.grant_id),
        });
    },
  );
}

/**
 * Notes a failed platform call on a row that keeps its failures (a grant, a banned member): one more
 * attempt, the next try and the platform's words; `tell` runs in the same transaction when a person
 * must know (a refusal, or a platform silent for SILENT_TRIES tries).
 */
async function noteFailure(
  db: Db,
  now: Date,
  err: PlatformError,
  row: { table: { rows(ctx: DomainContext): Knex.QueryBuilder }; id: string; teamId: string; attempts: number },
  tell: (ctx: DomainContext, retryAt: Date) => Promise<void>,
): Promise<void> {
  const attempts = row.attempts + 1;
  const retryAt = nextTry(now, attempts, err);
  await db.transaction(async (trx) => {
    const ctx = createDomainContext(trx, systemActor(row.teamId), now);
    await row.table
      .rows(ctx)
      .where({ id: row.id })
      .update({ platform_attempts: attempts, platform_retry_at: retryAt, platform_error: `${err.kind}: ${err.description ?? err.message}` });
    if (NEEDS_A_PERSON.has(err.kind) || attempts >= SILENT_TRIES) await tell(ctx, retryAt);
  });
}

const delayedKey = (grantId: string) => `access-delayed:${grantId}`;

/**
 * After a success, in its transaction: the grant's failures are forgotten, and a member who was told
 * of the delay and gets no invite link hears that the access works now.
 */
export async function recordSyncSuccess(ctx: DomainContext, item: StuckItem): Promise<void> {
  if (item.platform_attempts === 0) return;
  await grantsTable.rows(ctx).where({ id: item.grant_id }).update(PLATFORM_FAILURES_CLEARED);
  if (item.status !== "pending" || item.grant_mode === "bearer_link" || !item.user) return;
  const told = await botMessagesTable
    .rows(ctx)
    .where({ dedupe_key: delayedKey(item.grant_id) })
    .first("id");
  if (!told) return;
  await queueBotMessage(ctx, {
    installation: item.installation,
    recipient: item.user,
    phrases: [phrase("You have access to {resource} now. Thank you for waiting.", { resource: item.title })],
    purpose: "notice",
    subject: { type: "access_grant", id: item.grant_id },
    dedupeKey: `access-given:${item.grant_id}`,
  });
}

/**
 * Records a ban the platform would not apply and, when a person must know, alerts the team's owner
 * and admins (once a day per project: the banned member may still be in its places).
 */
export async function recordBanFailure(db: Db, member: StuckBan, places: readonly string[], err: PlatformError, now: Date): Promise<void> {
  await noteFailure(
    db,
    now,
    err,
    { table: membersTable, id: member.id, teamId: member.team_id, attempts: member.platform_attempts },
    async (ctx, retryAt) => {
      const connector = member.installation.connector_key;
      const bot = member.installation.platform_account_name ? `@${member.installation.platform_account_name}` : "the SubBridge bot";
      await alertStuckBan(ctx, {
        projectId: member.project_id,
        memberId: member.id,
        platform: platformName(connector),
        places,
        refusal: err.description ?? err.message,
        remedy:
          err.kind === "refused"
            ? `Make ${bot} an administrator with the right to ban users in each place${connector === "discord" ? " (Ban Members, Kick Members)" : ""}; meanwhile remove the member by hand.`
            : `Remove the member by hand from each place; SubBridge cannot act there now (${err.kind}).`,
        retryAt,
      });
    },
  );
}
