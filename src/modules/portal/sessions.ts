// Portal sessions: a member signed in to one project's portal. The browser's cookie holds a random
// key; each row holds its SHA-256, the project and the member, so one browser can be signed in to
// several projects, each on its own. Signing in moves the browser to a new key (no fixation).
import { randomToken, sha256Hex } from "../../security/crypto.ts";
import { unscoped, type DomainContext } from "../../db/tenant.ts";
import { membersTable, type MemberRow } from "../members/tables.ts";
import { portalSessionsTable, type PortalSessionRow } from "./tables.ts";

export const PORTAL_SESSION_MAX_AGE_MS = 14 * 24 * 3600_000;

export const newBrowserKey = () => randomToken(43);

/** The member the browser holding `browserKey` is signed in as on the project; null when none (or banned). */
export async function signedInMember(ctx: DomainContext, projectId: string, browserKey: string | null): Promise<MemberRow | null> {
  if (!browserKey) return null;
  const session = (await portalSessionsTable
    .rows(ctx)
    .where({ key_hash: sha256Hex(browserKey), project_id: projectId })
    .where("expires_at", ">", ctx.now)
    .first()) as PortalSessionRow | undefined;
  if (!session) return null;
  const member = (await membersTable.rows(ctx).where({ id: session.member_id, project_id: projectId }).first()) as MemberRow | undefined;
  return member && member.status !== "banned" ? member : null;
}

/**
 * Signs the browser in to the project as `memberId`: answers the browser's new key (its sessions
 * on other projects move along; the old key opens nothing any more).
 */
export async function openPortalSession(ctx: DomainContext, input: { projectId: string; memberId: string; oldKey: string | null }): Promise<string> {
  const key = newBrowserKey();
  const keyHash = sha256Hex(key);
  if (input.oldKey) {
    const browserSessions = unscoped(ctx, "a browser's sessions span projects of any team; found by a key hash only this browser holds");
    await browserSessions(portalSessionsTable.name)
      .where({ key_hash: sha256Hex(input.oldKey) })
      .whereNot({ project_id: input.projectId })
      .update({ key_hash: keyHash });
    await portalSessionsTable
      .rows(ctx)
      .where({ key_hash: sha256Hex(input.oldKey), project_id: input.projectId })
      .delete();
  }
  await portalSessionsTable.insert(ctx, {
    key_hash: keyHash,
    project_id: input.projectId,
    member_id: input.memberId,
    expires_at: new Date(ctx.now.getTime() + PORTAL_SESSION_MAX_AGE_MS),
    created_at: ctx.now,
  });
  return key;
}

/** Signs the browser out of the project (its other projects' sessions stay). */
export async function endPortalSession(ctx: DomainContext, projectId: string, browserKey: string | null): Promise<void> {
  if (!browserKey) return;
  await portalSessionsTable
    .rows(ctx)
    .where({ key_hash: sha256Hex(browserKey), project_id: projectId })
    .delete();
}
