// Brings the platforms in line with the access ledger: the connector's half of a grant. Pending
// grants of a platform mode are fulfilled (bearer_link: a single-use invite link sent to the member
// in a private message, queued for the bot message worker with the grant's marking; membership: the member let into the private place; role: the role given),
// then marked granted (member.resource_added).
// Revoked grants that were granted lose their access on the platform (removed from the place, the
// role taken), and a banned member is banned from every place of the project. Platform calls run
// outside any transaction; each item is then marked in its own short transaction. A grant whose call
// fails (the platform down, a permission missing) is tried again later, and the member and the
// creator hear of a refusal (stuck-access.ts).
// Invite links are made with an expiry and remembered; a revoked grant's unused links are revoked
// before the member is removed, and joins the platform reported are checked (invite-links.ts).
import type { Logger } from "pino";
import { randomUUID } from "node:crypto";
import { createDomainContext, systemActor, unscoped, type Db } from "../../db/tenant.ts";
import { markGrantFulfilled } from "../subscriptions/grants.ts";
import { grantsTable, PLATFORM_FAILURES_CLEARED } from "../subscriptions/tables.ts";
import { membersTable } from "../members/tables.ts";
import { PlatformError, type PlatformSession } from "./drivers/driver.ts";
import type { ConnectorEnvironment } from "./environment.ts";
import { inviteLinksTable } from "./tables.ts";
import { recordBanFailure, recordSyncFailure, recordSyncSuccess, type StuckBan, type StuckItem } from "./stuck-access.ts";
import { installationSession } from "./bot/session.ts";
import { inviteLinkExpiry, markLinksRevoked, outstandingLinks, revokeLinks, syncJoins } from "./invite-links.ts";
import { queueBotMessage } from "../bot-messages/outbox.ts";
import { phrase, type Phrase } from "../bot-messages/phrases.ts";
import { memberGrantOf } from "./member-grants.ts";
import { mention, queueLogLine } from "./log-channel.ts";
import { retryJoinRequests } from "./join-requests.ts";
import { actingItems, standbyColumn } from "./acting-installation.ts";

/** Modes whose grants the connector fulfils on the platform (creator_task: the creator does). */
export const FULFILLED = ["bearer_link", "membership", "role"] as const;

interface WorkItem extends StuckItem {
  granted_at: Date | null;
  /** The resource's early admission hold: its link is a join-request link (join-requests.ts). */
  hold: boolean;
}

export interface AccessSyncScope {
  /** Only this member's grants (the bot syncs right after a redemption); every member when absent. */
  memberId?: string;
  /** At most this many grants per sweep. */
  limit?: number;
}

export type AccessSyncEnvironment = Pick<ConnectorEnvironment, "platforms" | "appKey">;

/** Grants to bring in line, a failed one once it is due again (oldest due first). */
async function workItems(db: Db, scope: AccessSyncScope, now: Date): Promise<WorkItem[]> {
  const across = unscoped(db, "the connector sweep: stale grants of every team");
  const query = across("access_grants as g")
    .join("resources as r", "r.id", "g.resource_id")
    .join("members as m", "m.id", "g.member_id")
    .join("connector_installations as i", (j) => j.on("i.project_id", "g.project_id").andOn("i.connector_key", "r.connector_key"))
    .whereNull("g.platform_synced_at")
    .whereIn("g.grant_mode", [...FULFILLED])
    .whereIn("g.status", ["pending", "revoked"])
    .whereRaw("m.connector_key = r.connector_key")
    .where((due) => due.whereNull("g.platform_retry_at").orWhere("g.platform_retry_at", "<=", now))
    .orderByRaw("coalesce(g.platform_retry_at, g.created_at)")
    .limit(scope.limit ?? 100)
    .select(
      "g.id as grant_id",
      "g.resource_id",
      "g.platform_attempts",
      "g.member_id",
      "g.team_id",
      "g.project_id",
      "g.grant_mode",
      "g.status",
      "g.granted_at",
      "r.early_admission_hold as hold",
      "r.platform_ref as place",
      "r.title",
      "m.external_user_id as user",
      "m.status as member_status",
      db.raw("row_to_json(i.*) as installation"),
      standbyColumn(db, "i"),
    );
  if (scope.memberId) query.where("g.member_id", scope.memberId);
  return actingItems((await query) as WorkItem[]);
}

/** Per sweep, the members a platform with sign-in was asked to take in, by installation and member: the roles they got on the way in. */
type Joined = Map<string, Set<string>>;

/**
 * Where members join through the platform's sign-in (Discord), a role or membership grant first
 * brings the member into the server: one Add Guild Member call carrying every role the sweep is
 * about to give them; a member already in gets the role on its own. Answers whether the item's role
 * came with the join.
 */
async function joinedWithRole(
  db: Db,
  env: AccessSyncEnvironment,
  session: PlatformSession,
  item: WorkItem,
  items: WorkItem[],
  joined: Joined,
  now: Date,
) {
  if (!session.addMember || (item.grant_mode !== "role" && item.grant_mode !== "membership")) return false;
  const key = `${item.installation.id}:${item.member_id}`;
  if (!joined.has(key)) {
    const grant = await memberGrantOf(db, env, { id: item.member_id, team_id: item.team_id, connector_key: item.installation.connector_key }, now);
    const roles = items
      .filter(
        (o) => o.member_id === item.member_id && o.installation.id === item.installation.id && o.status === "pending" && o.grant_mode === "role",
      )
      .flatMap((o) => (o.place ? [o.place] : []));
    // With no grant (a member who never signed in through the platform) the role calls below say whether they are in.
    const outcome = grant ? await session.addMember(item.user!, grant, [...new Set(roles)]) : "present";
    joined.set(key, new Set(outcome === "added" ? roles : []));
  }
  return item.grant_mode === "role" && joined.get(key)!.has(item.place!);
}

/** Fulfils a pending grant; answers the invite link it made (bearer_link), to be remembered and sent. */
async function fulfil(session: PlatformSession, item: WorkItem, now: Date): Promise<Sent | null> {
  if (item.grant_mode === "role") return session.addRole(item.user!, item.place!).then(() => null);
  if (item.grant_mode === "membership") return session.admit(item.place!, item.user!).then(() => null);
  const expiry = inviteLinkExpiry(now);
  // A held place's link admits nobody by itself: each request through it is answered by the grants.
  const joinRequest = item.hold === true && typeof session.answerJoinRequest === "function";
  const link = await session.createInviteLink(item.place!, expiry, joinRequest ? { joinRequest } : undefined);
  return { url: link.url, expiresAt: expiry.expiresAt, joinRequest };
}

/** An invite link the sweep made for a grant, to be remembered and sent. */
interface Sent {
  url: string;
  expiresAt: Date;
  joinRequest: boolean;
}

/** The private message that carries a member's link. */
function linkMessage(title: string, sent: Sent): Phrase[] {
  return [
    phrase("Your access to {resource}: {link}", { resource: title, link: sent.url }),
    sent.joinRequest
      ? phrase("Open it and ask to join: the bot lets you in at once. The link works for a day.")
      : phrase("The link works once, for you, for a day."),
  ];
}

/**
 * Whether another of the member's grants still gives the same place: a subscription that ends while
 * a newer one of the member's runs (a cancelled trial, then a paid plan) takes nothing away.
 */
async function stillGranted(db: Db, item: WorkItem): Promise<boolean> {
  const other = await unscoped(
    db,
    "the member's other grants of the place, on the grant's team",
  )("access_grants")
    .where({ team_id: item.team_id, member_id: item.member_id, resource_id: item.resource_id, status: "granted" })
    .whereNot({ id: item.grant_id })
    .first("id");
  return other !== undefined;
}

/** What a removal did on the platform: the unused invite links it revoked, whether it took the access, and whether it kicked. */
interface Removal {
  revoked: string[];
  took: boolean;
  kicked: boolean;
}

/**
 * Whether the member still holds or is owed another platform grant on the installation (any place
 * of its connector): with `removal_behaviour` kick, only a member left with none leaves the server.
 */
async function coveredOnInstallation(db: Db, item: WorkItem): Promise<boolean> {
  const other = await unscoped(
    db,
    "the member's other grants on the installation, on the grant's team",
  )("access_grants as g")
    .join("resources as r", "r.id", "g.resource_id")
    .where({
      "g.team_id": item.team_id,
      "g.member_id": item.member_id,
      "g.project_id": item.project_id,
      "r.connector_key": item.installation.connector_key,
    })
    .whereIn("g.status", ["granted", "pending"])
    .whereIn("g.grant_mode", ["role", "membership"])
    .whereNot("g.id", item.grant_id)
    .first("g.id");
  return other !== undefined;
}

/** Takes a revoked grant's access away. */
async function remove(db: Db, session: PlatformSession, item: WorkItem, now: Date): Promise<Removal> {
  const none = { revoked: [], took: false, kicked: false };
  if (!item.place || !item.user || item.granted_at === null) return none;
  // An unused link would still admit the member (or whoever they passed it to) after the removal.
  const revoked = item.grant_mode === "bearer_link" ? await revokeLinks(session, await outstandingLinks(db, { grant_id: item.grant_id }, now)) : [];
  if (item.member_status !== "banned" && (await stillGranted(db, item))) return { ...none, revoked };
  if (item.grant_mode === "role") {
    await session.removeRole(item.user, item.place);
    // The installation's removal_behaviour: "kick" also takes the member out of the server once nothing there is theirs.
    const kick =
      item.installation.settings?.removal_behaviour === "kick" && item.member_status !== "banned" && !(await coveredOnInstallation(db, item));
    if (kick) await session.removeMember(item.place, item.user);
    return { revoked: [], took: true, kicked: kick };
  }
  if (item.grant_mode === "membership") return session.unadmit(item.place, item.user).then(() => ({ ...none, took: true }));
  // A banned member stays banned from the place (a plain removal lets them join again later).
  await session.removeMember(item.place, item.user, { ban: item.member_status === "banned" });
  return { revoked, took: true, kicked: false };
}

/** The log channel's line for a change the sweep made on the platform (null: nothing to tell). */
function logLine(item: WorkItem, removal: Removal | null, joined: boolean): string | null {
  const who = mention(item.user);
  if (item.status === "pending") {
    if (item.grant_mode === "bearer_link") return null;
    return joined ? `${who} joined the server with ${item.title}.` : `${who} was given ${item.title}.`;
  }
  if (!removal?.took) return null;
  return removal.kicked ? `${who} lost ${item.title} and was removed from the server.` : `${who} lost ${item.title}.`;
}

/** One sweep; answers how many grants, bans and uncovered joins it brought in line. */
export async function syncPlatformAccess(
  db: Db,
  env: AccessSyncEnvironment,
  now: Date,
  scope: AccessSyncScope = {},
  logger?: Logger,
): Promise<number> {
  let changed = 0;
  const items = await workItems(db, scope, now);
  const joined: Joined = new Map();
  for (const item of items) {
    let sent: Sent | null = null;
    let removal: Removal | null = null;
    let cameWithJoin = false;
    try {
      const session = installationSession(env, item.installation);
      if (item.status === "pending") {
        if (!item.place || !item.user) throw new PlatformError("refused", "The resource has no place on the platform, or the member no account.");
        cameWithJoin = await joinedWithRole(db, env, session, item, items, joined, now);
        if (!cameWithJoin) sent = await fulfil(session, item, now);
      } else removal = await remove(db, session, item, now);
    } catch (err) {
      if (!(err instanceof PlatformError)) throw err;
      logger?.warn({ grant_id: item.grant_id, kind: err.kind, err: err.message }, "platform access not synced; tried again later");
      await recordSyncFailure(db, item, err, now);
      continue;
    }
    await db.transaction(async (trx) => {
      const ctx = createDomainContext(trx, systemActor(item.team_id), now);
      if (item.status === "pending") await markGrantFulfilled(ctx, item.grant_id);
      else await grantsTable.rows(ctx).where({ id: item.grant_id }).update({ platform_synced_at: now });
      await recordSyncSuccess(ctx, item);
      if (sent && item.place && item.user)
        // Through the bot message worker, within the connector's pacing, once the grant is marked.
        await queueBotMessage(ctx, {
          installation: item.installation,
          recipient: item.user,
          phrases: linkMessage(item.title, sent),
          purpose: "access_link",
          subject: { type: "access_grant", id: item.grant_id },
          dedupeKey: `access-link:${item.grant_id}`,
        });
      if (sent && item.place)
        await inviteLinksTable.insert(ctx, {
          id: randomUUID(),
          project_id: item.project_id,
          installation_id: item.installation.id,
          grant_id: item.grant_id,
          member_id: item.member_id,
          place: item.place,
          link: sent.url,
          creates_join_request: sent.joinRequest,
          created_at: now,
          expires_at: sent.expiresAt,
        });
      await markLinksRevoked(trx, item.team_id, removal?.revoked ?? [], now);
      const line = logLine(item, removal, cameWithJoin);
      if (line) await queueLogLine(ctx, item.installation, line, { type: "access_grant", id: item.grant_id });
    });
    changed++;
  }
  const bans = await syncBans(db, env, now, scope, logger);
  // Joins and join requests are the platform's news about anyone, so a sweep for one member leaves them to the full sweep.
  if (scope.memberId) return changed + bans;
  const requests = await retryJoinRequests(db, env, now, scope.limit ?? 100, logger);
  return changed + bans + requests + (await syncJoins(db, env, now, scope.limit ?? 100, logger));
}

/** Banned members (platform side pending): banned from every place of the project on their platform. */
async function syncBans(db: Db, env: AccessSyncEnvironment, now: Date, scope: AccessSyncScope, logger?: Logger): Promise<number> {
  const base = unscoped(db, "the connector sweep: bans of every team");
  const query = base("members as m")
    .join("connector_installations as i", (j) => j.on("i.project_id", "m.project_id").andOn("i.connector_key", "m.connector_key"))
    .whereNull("m.platform_synced_at")
    .where("m.status", "banned")
    .where((due) => due.whereNull("m.platform_retry_at").orWhere("m.platform_retry_at", "<=", now))
    .orderByRaw("coalesce(m.platform_retry_at, m.banned_at)")
    .limit(scope.limit ?? 100)
    .select(
      "m.id",
      "m.team_id",
      "m.project_id",
      "m.external_user_id as user",
      "m.platform_attempts",
      base.raw("row_to_json(i.*) as installation"),
      standbyColumn(db, "i"),
    );
  if (scope.memberId) query.where("m.id", scope.memberId);
  let changed = 0;
  for (const member of actingItems((await query) as StuckBan[])) {
    const places = (await base("resources")
      .where({ project_id: member.project_id, connector_key: member.installation.connector_key })
      .whereNotNull("platform_ref")
      .whereIn("grant_mode", ["bearer_link", "membership"])
      .pluck("platform_ref")) as string[];
    let revoked: string[] = [];
    try {
      const session = installationSession(env, member.installation);
      // Links of grants not yet revoked on the platform too: none of the member's links may admit anyone.
      revoked = await revokeLinks(session, await outstandingLinks(db, { member_id: member.id }, now));
      if (member.user) for (const place of places) await session.removeMember(place, member.user, { ban: true });
    } catch (err) {
      if (!(err instanceof PlatformError)) throw err;
      logger?.warn({ member_id: member.id, kind: err.kind, err: err.message }, "ban not applied on the platform; tried again later");
      await recordBanFailure(db, member, places, err, now);
      continue;
    }
    await db.transaction(async (trx) => {
      const ctx = createDomainContext(trx, systemActor(member.team_id), now);
      await membersTable
        .rows(ctx)
        .where({ id: member.id })
        .update({ platform_synced_at: now, ...PLATFORM_FAILURES_CLEARED });
      await markLinksRevoked(trx, member.team_id, revoked, now);
    });
    changed++;
  }
  return changed;
}
