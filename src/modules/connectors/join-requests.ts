// Join requests (issue 46, item 2). A place under an early admission hold gets join-request links
// (access-sync.ts): whoever opens one asks to join, and Telegram sends the bot a chat_join_request.
// The request is approved when the requester is a member of the project holding a live grant of a
// resource at that place, and declined otherwise, with a message pointing to the project's portal
// sent first (Telegram lets the bot write to the requester only until the request is answered). A
// link passed on admits nobody: the one who opens it is not the member it was made for. Each
// request is remembered by its update id, so an update delivered again is answered once; the
// platform call runs after the decision commits, and one the platform did not take (unreachable,
// rate limited) is tried again by the connector sweep (retryJoinRequests).
import type { Logger } from "pino";
import { randomUUID } from "node:crypto";
import { createDomainContext, systemActor, tenantTable, unscoped, type Db, type DomainContext } from "../../db/tenant.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { membersTable } from "../members/tables.ts";
import { resourcesTable } from "../resources/tables.ts";
import { grantsTable, LIVE_GRANT_STATUSES } from "../subscriptions/tables.ts";
import { PlatformError } from "./drivers/driver.ts";
import type { ConnectorEnvironment } from "./environment.ts";
import { inviteLinksTable, type InstallationRow } from "./tables.ts";
import { installationSession } from "./bot/session.ts";
import { projectPortal } from "./bot/start.ts";

export const joinRequestsTable = tenantTable("connector_join_requests", { team: "team_id", project: "project_id" });

export interface JoinRequestRow {
  id: string;
  team_id: string;
  project_id: string;
  installation_id: string;
  update_id: string | number;
  place: string;
  external_user_id: string;
  user_chat_id: string | null;
  invite_link: string | null;
  member_id: string | null;
  decision: "approve" | "decline";
  notice: string | null;
  requested_at: Date;
  decided_at: Date | null;
  attempts: number;
}

type SessionEnvironment = Pick<ConnectorEnvironment, "platforms" | "appKey">;
export type JoinRequestEnvironment = SessionEnvironment & Pick<ConnectorEnvironment, "portalUrl">;

/** The first retry is the next sweep (it runs every minute), so an approval lands within a minute; then 1 min, 2 min ... up to an hour. */
const RETRY_STEP_MS = 30_000;
const LONGEST_RETRY_MS = 60 * 60_000;
const retryDelay = (attempts: number) => (attempts <= 1 ? 0 : Math.min(RETRY_STEP_MS * 2 ** (attempts - 1), LONGEST_RETRY_MS));
/** A request recorded this long ago and never tried was left by a process that stopped mid-way: the sweep takes it up. */
const ABANDONED_MS = 60_000;

interface ChatJoinRequest {
  chat?: { id?: unknown };
  from?: { id?: unknown; is_bot?: unknown };
  user_chat_id?: unknown;
  invite_link?: { invite_link?: unknown };
}

const idOf = (value: unknown): string | null =>
  typeof value === "number" || (typeof value === "string" && /^-?[0-9]+$/.test(value)) ? String(value) : null;

/** The message a declined requester gets: why, and where to join. */
export function declinedNotice(portal: string): string {
  return `You asked to join a members-only chat, but you have no membership that includes it. Join or renew on ${portal} and open the link the bot sends you.`;
}

/**
 * A Telegram update that is a chat_join_request: decided, recorded and answered on the platform.
 * Answers whether the update was one (it is then read, whatever became of it).
 */
export async function answerTelegramJoinRequest(
  db: Db,
  env: JoinRequestEnvironment,
  installation: InstallationRow,
  update: unknown,
  now: Date,
  logger?: Logger,
): Promise<boolean> {
  const body = update as { update_id?: unknown; chat_join_request?: ChatJoinRequest } | null;
  const request = body?.chat_join_request;
  if (!request || typeof request !== "object") return false;
  const place = idOf(request.chat?.id);
  const user = idOf(request.from?.id);
  const updateId = idOf(body?.update_id);
  if (!place || !user || !updateId || request.from?.is_bot === true) return true;
  const row = await db.transaction((trx) =>
    decide(createDomainContext(trx, systemActor(installation.team_id), now), env, installation, {
      updateId,
      place,
      user,
      userChat: idOf(request.user_chat_id),
      link: typeof request.invite_link?.invite_link === "string" ? request.invite_link.invite_link : null,
    }),
  );
  if (row) await carryOut(db, env, installation, row, now, logger);
  return true;
}

/** Records the request with its decision; null when it is not the installation's to answer, or was recorded before. */
async function decide(
  ctx: DomainContext,
  env: JoinRequestEnvironment,
  installation: InstallationRow,
  request: { updateId: string; place: string; user: string; userChat: string | null; link: string | null },
): Promise<JoinRequestRow | null> {
  const resources = (await resourcesTable
    .rows(ctx)
    .where({ project_id: installation.project_id, connector_key: installation.connector_key, platform_ref: request.place })
    .pluck("id")) as string[];
  // A chat no resource gates is the creator's own: its requests are left to its administrators.
  if (!resources.length) return null;
  const member = (await membersTable
    .rows(ctx)
    .where({ project_id: installation.project_id, connector_key: installation.connector_key, external_user_id: request.user })
    .first("id", "status")) as { id: string; status: string } | undefined;
  const covering =
    member && member.status !== "banned"
      ? await grantsTable
          .rows(ctx)
          .where({ member_id: member.id })
          .whereIn("resource_id", resources)
          .whereIn("status", [...LIVE_GRANT_STATUSES])
          .first("id")
      : undefined;
  const decision = covering ? "approve" : "decline";
  const inserted = (await joinRequestsTable
    .insert(ctx, {
      id: randomUUID(),
      project_id: installation.project_id,
      installation_id: installation.id,
      update_id: request.updateId,
      place: request.place,
      external_user_id: request.user,
      user_chat_id: request.userChat,
      invite_link: request.link,
      member_id: member?.id ?? null,
      decision,
      notice: decision === "decline" ? declinedNotice(await projectPortal(ctx, installation.project_id, env.portalUrl)) : null,
      requested_at: ctx.now,
    })
    .onConflict(["installation_id", "update_id"])
    .ignore()
    .returning("*")) as JoinRequestRow[];
  return inserted[0] ?? null;
}

/**
 * Answers the request on the platform (outside any transaction), then marks it. A decline's message
 * goes first, once, and its failure (the requester cannot be written to) does not stop the decline.
 * Answers whether the platform took the answer (false: tried again later).
 */
async function carryOut(db: Db, env: SessionEnvironment, installation: InstallationRow, row: JoinRequestRow, now: Date, logger?: Logger) {
  const session = installationSession(env, installation);
  const mine = () => joinRequestsTable.rows(createDomainContext(db, systemActor(row.team_id), now)).where({ id: row.id });
  if (row.notice) {
    try {
      await session.sendMessage(row.user_chat_id ?? row.external_user_id, row.notice);
    } catch (err) {
      if (!(err instanceof PlatformError)) throw err;
      logger?.warn({ join_request_id: row.id, kind: err.kind, err: err.message }, "declined requester not told; the decline goes on");
    }
    await mine().update({ notice: null });
  }
  let refusal: string | null = null;
  try {
    if (!session.answerJoinRequest) throw new PlatformError("unsupported", "The platform has no join requests.");
    await session.answerJoinRequest(row.place, row.external_user_id, row.decision === "approve");
  } catch (err) {
    if (!(err instanceof PlatformError)) throw err;
    const attempts = row.attempts + 1;
    const again = err.kind === "unreachable" || err.kind === "rate_limited";
    logger?.warn({ join_request_id: row.id, kind: err.kind, err: err.message, again }, "join request not answered on the platform");
    if (again) {
      const wait = Math.max(err.retryAfterMs ?? 0, retryDelay(attempts));
      await mine().update({ attempts, retry_at: new Date(now.getTime() + wait), last_error: `${err.kind}: ${err.message}`.slice(0, 500) });
      return false;
    }
    // Refused for good (the request was answered by an administrator, or expired): nothing to try again.
    refusal = `${err.kind}: ${err.description ?? err.message}`.slice(0, 500);
  }
  await db.transaction(async (trx) => {
    const ctx = createDomainContext(trx, systemActor(row.team_id), now);
    await joinRequestsTable
      .rows(ctx)
      .where({ id: row.id })
      .update({ decided_at: now, attempts: row.attempts + 1, retry_at: null, last_error: refusal });
    // The member's own link has done its work once they are in.
    if (row.decision === "approve" && !refusal && row.invite_link && row.member_id)
      await inviteLinksTable
        .rows(ctx)
        .where({ installation_id: row.installation_id, link: row.invite_link, member_id: row.member_id })
        .whereNull("used_at")
        .update({ used_at: now });
    const approved = row.decision === "approve";
    await recordActivity(ctx, {
      event: approved ? "connector_join_approved" : "connector_join_declined",
      description: refusal
        ? `The platform refused to ${row.decision} a request to join ${row.place} (${refusal}).`
        : approved
          ? `A member's request to join ${row.place} was approved: they hold access to it.`
          : `A request to join ${row.place} was declined: the requester holds no access to it.`,
      subjectType: row.member_id ? "member" : "project",
      subjectId: row.member_id ?? row.project_id,
      projectId: row.project_id,
      properties: {
        connector: installation.connector_key,
        installation_id: installation.id,
        place: row.place,
        external_user_id: row.external_user_id,
        ...(refusal ? { refused: refusal } : {}),
      },
    });
  });
  return !refusal;
}

/** The connector sweep's retry of requests whose answer the platform did not take; answers how many it answered now. */
export async function retryJoinRequests(db: Db, env: SessionEnvironment, now: Date, limit: number, logger?: Logger): Promise<number> {
  const across = unscoped(db, "the connector sweep: join requests of every team still to be answered");
  const due = (await across("connector_join_requests as q")
    .join("connector_installations as i", "i.id", "q.installation_id")
    .whereNull("q.decided_at")
    .where((when) =>
      when
        .where("q.retry_at", "<=", now)
        .orWhere((left) => left.whereNull("q.retry_at").where("q.requested_at", "<=", new Date(now.getTime() - ABANDONED_MS))),
    )
    .orderBy("q.requested_at")
    .limit(limit)
    .select("q.*", db.raw("row_to_json(i.*) as installation"))) as (JoinRequestRow & { installation: InstallationRow })[];
  let answered = 0;
  for (const { installation, ...row } of due) if (await carryOut(db, env, installation, row, now, logger)) answered++;
  return answered;
}
