// The invite links the connector sweep sends (issue 34, item 6) and the joins the platforms report.
// A link admits one member (member_limit 1, Discord max_uses 1) for INVITE_LINK_SECONDS and is
// remembered, so that one still unused when its grant is revoked (the subscription ended, the member
// banned) is revoked on the platform, and admits nobody later. A join the platform reports (Telegram's
// chat_member update) is recorded and checked by the sweep: one without a covering grant (a link
// passed on, a creator's own link, a member whose access ended) is removed from the place.
import type { Logger } from "pino";
import { randomUUID } from "node:crypto";
import { createDomainContext, systemActor, unscoped, type Db } from "../../db/tenant.ts";
import { PlatformError, type InviteLinkExpiry, type PlatformSession } from "./drivers/driver.ts";
import { inviteLinksTable, platformJoinsTable, type InstallationRow } from "./tables.ts";
import { installationSession } from "./bot/session.ts";
import { actingItems, standbyColumn } from "./acting-installation.ts";
import type { ConnectorEnvironment } from "./environment.ts";
import { LIVE_GRANT_STATUSES } from "../subscriptions/tables.ts";

/** How long an invite link admits: a day, long enough to open the message (Discord allows at most 7 days). */
export const INVITE_LINK_SECONDS = 86_400;

export interface InviteLinkRow {
  id: string;
  team_id: string;
  project_id: string;
  installation_id: string;
  grant_id: string;
  member_id: string;
  place: string;
  link: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  used_at: Date | null;
}

/** The expiry of a link made at `now`, in whole seconds as Telegram's expire_date keeps it (so the row says what Telegram enforces). */
export function inviteLinkExpiry(now: Date): InviteLinkExpiry {
  const expiresAt = new Date((Math.floor(now.getTime() / 1000) + INVITE_LINK_SECONDS) * 1000);
  return { expiresAt, seconds: INVITE_LINK_SECONDS };
}

/** The links of a grant (or of a member) that could still admit someone: not revoked, not used, not expired. */
export async function outstandingLinks(db: Db, where: { grant_id: string } | { member_id: string }, now: Date): Promise<InviteLinkRow[]> {
  const across = unscoped(db, "the connector sweep: the links of a grant or member it is revoking, found by their ids");
  return (await across("connector_invite_links")
    .where(where)
    .whereNull("revoked_at")
    .whereNull("used_at")
    .where("expires_at", ">", now)
    .orderBy("created_at")) as InviteLinkRow[];
}

/** Revokes each link on the platform (outside any transaction); answers the ids to mark revoked. */
export async function revokeLinks(session: PlatformSession, links: InviteLinkRow[]): Promise<string[]> {
  for (const link of links) await session.revokeInviteLink(link.place, link.link);
  return links.map((link) => link.id);
}

export async function markLinksRevoked(db: Db, teamId: string, ids: string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await inviteLinksTable
    .rows(createDomainContext(db, systemActor(teamId), now))
    .whereIn("id", ids)
    .update({ revoked_at: now });
}

interface ChatMemberUpdate {
  chat?: { id?: unknown };
  old_chat_member?: { status?: unknown };
  new_chat_member?: { status?: unknown; user?: { id?: unknown; is_bot?: unknown } };
  invite_link?: { invite_link?: unknown };
}

const OUTSIDE = ["left", "kicked"];
const INSIDE = ["member", "restricted"];

/**
 * A Telegram chat_member update that is someone joining a chat: recorded for the sweep to check, and
 * the invite link it came through marked used. Answers whether the update was a chat_member one.
 */
export async function recordTelegramJoin(db: Db, installation: InstallationRow, update: unknown, now: Date): Promise<boolean> {
  const change = (update as { chat_member?: ChatMemberUpdate } | null)?.chat_member;
  if (!change || typeof change !== "object") return false;
  const user = change.new_chat_member?.user;
  const joined = OUTSIDE.includes(String(change.old_chat_member?.status)) && INSIDE.includes(String(change.new_chat_member?.status));
  const chat = change.chat?.id;
  if (!joined || typeof user?.id !== "number" || user.is_bot === true || (typeof chat !== "number" && typeof chat !== "string")) return true;
  const link = typeof change.invite_link?.invite_link === "string" ? change.invite_link.invite_link : null;
  await db.transaction(async (trx) => {
    const ctx = createDomainContext(trx, systemActor(installation.team_id), now);
    await platformJoinsTable.insert(ctx, {
      id: randomUUID(),
      project_id: installation.project_id,
      installation_id: installation.id,
      place: String(chat),
      external_user_id: String(user.id),
      invite_link: link,
      joined_at: now,
    });
    if (link) await inviteLinksTable.rows(ctx).where({ installation_id: installation.id, link }).whereNull("used_at").update({ used_at: now });
  });
  return true;
}

interface JoinItem {
  id: string;
  team_id: string;
  project_id: string;
  place: string;
  user: string;
  covered: boolean;
  installation: InstallationRow;
}

/** The sweep's check of reported joins: a join with no live grant of that member for that place is removed. */
export async function syncJoins(
  db: Db,
  env: Pick<ConnectorEnvironment, "platforms" | "appKey">,
  now: Date,
  limit: number,
  logger?: Logger,
): Promise<number> {
  const across = unscoped(db, "the connector sweep: joins of every team");
  const covering = across("access_grants as g")
    .join("resources as r", "r.id", "g.resource_id")
    .join("members as m", "m.id", "g.member_id")
    .whereRaw("g.project_id = j.project_id and r.platform_ref = j.place and r.connector_key = i.connector_key")
    .whereRaw("m.connector_key = i.connector_key and m.external_user_id = j.external_user_id")
    .whereNot("m.status", "banned")
    .whereIn("g.status", [...LIVE_GRANT_STATUSES])
    .select(db.raw("1"));
  const items = (await across("connector_platform_joins as j")
    .join("connector_installations as i", "i.id", "j.installation_id")
    .whereNull("j.checked_at")
    .orderBy("j.joined_at")
    .limit(limit)
    .select(
      "j.id",
      "j.team_id",
      "j.project_id",
      "j.place",
      "j.external_user_id as user",
      db.raw("exists (?) as covered", [covering]),
      db.raw("row_to_json(i.*) as installation"),
      standbyColumn(db, "i"),
    )) as JoinItem[];
  let removed = 0;
  for (const join of actingItems(items)) {
    if (!join.covered) {
      try {
        await installationSession(env, join.installation).removeMember(join.place, join.user);
      } catch (err) {
        if (!(err instanceof PlatformError)) throw err;
        logger?.warn({ join_id: join.id, kind: err.kind, err: err.message }, "uncovered join not removed; retried on the next sweep");
        continue;
      }
      removed++;
    }
    const ctx = createDomainContext(db, systemActor(join.team_id), now);
    await platformJoinsTable
      .rows(ctx)
      .where({ id: join.id })
      .update({ checked_at: now, ...(join.covered ? {} : { removed_at: now }) });
  }
  return removed;
}
