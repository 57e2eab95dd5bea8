// The chats an installation's bot administers, for the dashboard's setup wizard ("pick the chat the
// bot was made administrator of" rather than typing its id). Telegram's Bot API has no call that
// lists a bot's chats, so they are learned from the my_chat_member updates Telegram sends when the
// bot's standing in a chat changes: made administrator (or owner) of a group, supergroup or channel,
// the chat is remembered with the rights the update grants; demoted, left or removed, it is marked
// gone. The list starts empty at install (and stays as learned when a bot is reintroduced), and a new
// bot token on the installation starts a new one. Each change the list sees is an activity entry.
// A platform that answers its places when asked (Discord: a server's text channels and roles) is
// asked on each listing instead, through the driver, and its answer is paged here.
import { randomUUID } from "node:crypto";
import { createDomainContext, type Actor, type Db, type DomainContext } from "../../db/tenant.ts";
import { sortedPage, type PageWindow } from "../../db/pages.ts";
import { domainRefusal } from "../../errors.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { resourcesTable } from "../resources/tables.ts";
import type { ConnectorEnvironment } from "./environment.ts";
import { installationOf, onPlatform } from "./installations.ts";
import { installationSession } from "./bot/session.ts";
import type { PlatformPlace } from "./drivers/driver.ts";
import { botChatsTable, type InstallationRow } from "./tables.ts";

/** The connectors whose bot learns its chats from the platform's updates. */
const CHAT_LEARNING_CONNECTORS = ["telegram"];
/** The chat types a community lives in (a private chat's my_chat_member is a person blocking the bot). */
const COMMUNITY_CHATS = ["group", "supergroup", "channel"];
/** Telegram's standings in which the bot administers the chat. */
const ADMINISTERING = ["administrator", "creator"];
/** Telegram allows 128 characters in a title; anything longer is cut rather than refused. */
const TITLE_LIMIT = 255;

interface BotChatRow {
  id: string;
  project_id: string;
  installation_id: string;
  bot_account_id: string;
  chat_id: string;
  title: string;
  type: string;
  can_invite_users: boolean;
  can_restrict_members: boolean;
  added_at: Date;
  standing_at: Date;
  removed_at: Date | null;
  resource_id?: string | null;
}

interface MyChatMember {
  chat?: { id?: unknown; type?: unknown; title?: unknown };
  date?: unknown;
  new_chat_member?: { status?: unknown; user?: { id?: unknown }; can_invite_users?: unknown; can_restrict_members?: unknown };
}

/** What a my_chat_member update says of one community chat, or null when it says nothing the list keeps. */
function chatChange(installation: InstallationRow, update: unknown, now: Date) {
  const change = (update as { my_chat_member?: MyChatMember } | null)?.my_chat_member;
  const chat = change?.chat;
  const member = change?.new_chat_member;
  if (!chat || !member || (typeof chat.id !== "number" && typeof chat.id !== "string") || !COMMUNITY_CHATS.includes(String(chat.type))) return null;
  // The update is about this installation's bot (its own standing), never another user's.
  if (installation.platform_account_id === null || String(member.user?.id) !== installation.platform_account_id) return null;
  const owner = member.status === "creator";
  const date = typeof change.date === "number" && Number.isFinite(change.date) ? new Date(change.date * 1000) : now;
  return {
    chatId: String(chat.id),
    title: (typeof chat.title === "string" && chat.title ? chat.title : `Chat ${String(chat.id)}`).slice(0, TITLE_LIMIT),
    type: String(chat.type),
    administrator: ADMINISTERING.includes(String(member.status)),
    canInviteUsers: owner || member.can_invite_users === true,
    canRestrictMembers: owner || member.can_restrict_members === true,
    date,
  };
}

/**
 * Telegram's my_chat_member update for the installation's bot: the chat is remembered while the bot
 * administers it and marked gone once it does not. A change older than the one applied (Telegram's
 * date) is ignored. Runs beside the recovery probe the same update triggers; answers nothing.
 */
export async function learnTelegramChat(db: Db, installation: InstallationRow, update: unknown, now: Date, requestId: string | null): Promise<void> {
  const change = chatChange(installation, update, now);
  if (!change) return;
  const actor: Actor = { userId: null, teamId: installation.team_id, projectIds: null, kind: "webhook", credentialKind: null, requestId };
  await db.transaction(async (trx) => {
    const ctx = createDomainContext(trx, actor, now);
    const where = { installation_id: installation.id, chat_id: change.chatId };
    const known = (await botChatsTable.rows(ctx).where(where).forUpdate().first()) as BotChatRow | undefined;
    if (known && new Date(known.standing_at).getTime() > change.date.getTime()) return;
    const listed = known !== undefined && known.removed_at === null;
    const facts = {
      bot_account_id: installation.platform_account_id!,
      title: change.title,
      type: change.type,
      can_invite_users: change.canInviteUsers,
      can_restrict_members: change.canRestrictMembers,
      standing_at: change.date,
      updated_at: now,
    };
    if (change.administrator) {
      if (known)
        await botChatsTable
          .rows(ctx)
          .where(where)
          .update({ ...facts, removed_at: null, added_at: listed ? known.added_at : now });
      else await botChatsTable.insert(ctx, { id: randomUUID(), project_id: installation.project_id, ...where, ...facts, added_at: now });
    } else if (listed) {
      await botChatsTable
        .rows(ctx)
        .where(where)
        .update({ ...facts, removed_at: now });
    }
    if (listed === change.administrator) return;
    const verb = change.administrator ? "added" : "removed";
    await recordActivity(ctx, {
      event: `connector_chat_${verb}`,
      description: change.administrator
        ? `The bot was made an administrator of the ${change.type} "${change.title}".`
        : `The bot no longer administers the ${change.type} "${change.title}".`,
      subjectType: "project",
      subjectId: installation.project_id,
      projectId: installation.project_id,
      properties: { connector: installation.connector_key, installation_id: installation.id, chat_id: change.chatId, type: change.type },
    });
  });
}

function presentBotChat(row: BotChatRow) {
  // Access to a Telegram chat is an invite link in, and a removal out.
  const unmanageable = !row.can_invite_users
    ? "the bot may not invite users there"
    : !row.can_restrict_members
      ? "the bot may not remove members there"
      : null;
  return {
    chat_id: row.chat_id,
    title: row.title,
    type: row.type as "group" | "supergroup" | "channel",
    kind: (row.type === "channel" ? "channel" : "group") as "channel" | "group" | "role",
    can_invite_users: row.can_invite_users,
    can_restrict_members: row.can_restrict_members,
    manageable: unmanageable === null,
    unmanageable_reason: unmanageable,
    added_at: new Date(row.added_at).toISOString(),
    resource_id: row.resource_id ?? null,
  };
}

type ListedChat = ReturnType<typeof presentBotChat> | ReturnType<typeof presentPlace>;

/** Discord's epoch: a snowflake id carries its creation time in milliseconds since it (bits 22 and up). */
const DISCORD_EPOCH_MS = 1420070400000n;

function presentPlace(place: PlatformPlace, resourceId: string | null) {
  const created = /^[0-9]{1,20}$/.test(place.id) ? new Date(Number((BigInt(place.id) >> 22n) + DISCORD_EPOCH_MS)) : new Date(0);
  return {
    chat_id: place.id,
    title: place.name,
    type: place.type,
    kind: place.kind,
    can_invite_users: place.canInvite,
    can_restrict_members: place.canRemove,
    manageable: place.unmanageable === null,
    unmanageable_reason: place.unmanageable,
    added_at: created.toISOString(),
    resource_id: resourceId,
  };
}

/** The platform's places, asked now and paged here (the same order the SQL list keeps: the column, then the id). */
async function listPlatformPlaces(ctx: DomainContext, installation: InstallationRow, asked: () => Promise<PlatformPlace[]>, window: PageWindow) {
  const places = await onPlatform(installation.connector_key, asked);
  const gating = (await resourcesTable
    .rows(ctx)
    .where({ project_id: installation.project_id, connector_key: installation.connector_key })
    .whereIn(
      "platform_ref",
      places.map((p) => p.id),
    )
    .orderBy([
      { column: "active", order: "asc" },
      { column: "created_at", order: "desc" },
    ])
    .select("id", "platform_ref")) as { id: string; platform_ref: string }[];
  // The map keeps the last row of a place: an active one first, then the oldest (as the SQL list).
  const resourceOf = new Map(gating.map((r) => [r.platform_ref, r.id]));
  const rows: ListedChat[] = places.map((place) => presentPlace(place, resourceOf.get(place.id) ?? null));
  const key = window.sortBy === "title" ? (c: ListedChat) => c.title.toLowerCase() : (c: ListedChat) => c.added_at;
  const direction = window.sortDirection === "asc" ? 1 : -1;
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  rows.sort((a, b) => direction * (compare(key(a), key(b)) || compare(a.chat_id, b.chat_id)));
  return { rows: rows.slice(window.offset, window.offset + window.limit), total: rows.length };
}

const SORT: Record<string, string> = { created_at: "added_at", added_at: "added_at", title: "title" };

/**
 * The chats the project's installation of `key` administers now, each with the resource of the
 * project that already gates it (an active one first), or null. A connector whose bot cannot learn
 * its chats answers 422 with context.reason chats_not_listed.
 */
export async function listBotChats(
  ctx: DomainContext,
  env: ConnectorEnvironment,
  projectId: string,
  key: string,
  window: PageWindow,
): Promise<{ rows: ListedChat[]; total: number }> {
  const installation = await installationOf(ctx, env, projectId, key);
  if (!CHAT_LEARNING_CONNECTORS.includes(key)) {
    const session = installationSession(env, installation);
    if (session.places) return listPlatformPlaces(ctx, installation, () => session.places!(), window);
    throw domainRefusal(`The ${key} connector keeps no list of chats: name the place in the resource's platform_ref.`, {
      connector: key,
      reason: "chats_not_listed",
    });
  }
  const gating = resourcesTable
    .rows(ctx)
    .where("resources.connector_key", key)
    .whereRaw("resources.project_id = connector_bot_chats.project_id and resources.platform_ref = connector_bot_chats.chat_id")
    .orderBy([
      { column: "resources.active", order: "desc" },
      { column: "resources.created_at", order: "asc" },
    ])
    .limit(1)
    .select("resources.id");
  const query = botChatsTable
    .rows(ctx)
    .where({ installation_id: installation.id, bot_account_id: installation.platform_account_id ?? "" })
    .whereNull("removed_at")
    .select("connector_bot_chats.*", gating.as("resource_id"));
  const { rows, total } = await sortedPage<BotChatRow>(query, window, SORT);
  return { rows: rows.map(presentBotChat), total };
}
