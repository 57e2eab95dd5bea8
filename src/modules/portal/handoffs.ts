// The portal's member sign-in through a connector (description: the `auth_<token>` start payload,
// "portal sign-in handoff"). The browser starts a handoff bound to its portal cookie and opens the
// bot with `/start auth_<token>`; the bot claims it for the platform account that pressed Start
// (that account's member of the project); the same browser then completes it once, within ten
// minutes, into a portal session. The token is stored as its SHA-256 (and sealed with APP_KEY so
// the waiting page can show the link again), the browser key as its SHA-256.
import { randomUUID } from "node:crypto";
import { decrypt, encrypt, randomToken, safeEqual, sha256Hex } from "../../security/crypto.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { findOrCreateMember, type PlatformAccount } from "../members/members.ts";
import type { InstallationRow } from "../connectors/tables.ts";
import { portalHandoffsTable, type HandoffRow } from "./tables.ts";

export const HANDOFF_TTL_MS = 10 * 60_000;
export const AUTH_PAYLOAD_PREFIX = "auth_";

export interface StartedHandoff {
  id: string;
  /** The start payload for the bot: auth_<token>. */
  payload: string;
}

/** A new handoff of the project through `installation`, bound to the browser holding `browserKey`. */
export async function startHandoff(
  ctx: DomainContext,
  input: { appKey: Buffer; installation: InstallationRow; browserKey: string },
): Promise<StartedHandoff> {
  const id = randomUUID();
  const token = randomToken(40);
  await portalHandoffsTable.insert(ctx, {
    id,
    project_id: input.installation.project_id,
    installation_id: input.installation.id,
    token_hash: sha256Hex(token),
    token_sealed: encrypt(input.appKey, token, id),
    browser_hash: sha256Hex(input.browserKey),
    expires_at: new Date(ctx.now.getTime() + HANDOFF_TTL_MS),
    created_at: ctx.now,
  });
  return { id, payload: `${AUTH_PAYLOAD_PREFIX}${token}` };
}

export type HandoffState = "waiting" | "confirmed" | "expired" | "used";

export interface BrowserHandoff {
  row: HandoffRow;
  state: HandoffState;
  /** The start payload again (auth_<token>), for the waiting page. */
  payload: string;
}

function stateOf(row: HandoffRow, now: Date): HandoffState {
  if (row.completed_at) return "used";
  if (new Date(row.expires_at) <= now) return "expired";
  return row.member_id ? "confirmed" : "waiting";
}

/** The project's handoff `id` as the browser holding `browserKey` sees it; null for any other browser. */
export async function handoffOfBrowser(
  ctx: DomainContext,
  input: { appKey: Buffer; projectId: string; id: string; browserKey: string | null },
): Promise<BrowserHandoff | null> {
  if (!input.browserKey) return null;
  const row = (await portalHandoffsTable.rows(ctx).where({ id: input.id, project_id: input.projectId }).first()) as HandoffRow | undefined;
  if (!row || !safeEqual(row.browser_hash, sha256Hex(input.browserKey))) return null;
  return { row, state: stateOf(row, ctx.now), payload: `${AUTH_PAYLOAD_PREFIX}${decrypt(input.appKey, row.token_sealed, row.id)}` };
}

export type ClaimResult = { claimed: true; memberId: string } | { claimed: false; reason: "unknown" | "expired" | "used" | "banned" };

/**
 * The bot received `/start auth_<token>` from `account`: claims the handoff for that account's
 * member of the project (found or created). Only the installation the link pointed at may claim
 * it, once, before it expires.
 */
export async function claimHandoff(
  ctx: DomainContext,
  input: { installation: InstallationRow; account: PlatformAccount; token: string },
): Promise<ClaimResult> {
  const row = (await portalHandoffsTable
    .rows(ctx)
    .where({ token_hash: sha256Hex(input.token), installation_id: input.installation.id })
    .forUpdate()
    .first()) as HandoffRow | undefined;
  if (!row) return { claimed: false, reason: "unknown" };
  const state = stateOf(row, ctx.now);
  if (state === "expired") return { claimed: false, reason: "expired" };
  if (state !== "waiting") return { claimed: false, reason: "used" };
  const { member } = await findOrCreateMember(ctx, row.project_id, input.account);
  if (member.status === "banned") return { claimed: false, reason: "banned" };
  const updated = await portalHandoffsTable
    .rows(ctx)
    .where({ id: row.id })
    .whereNull("member_id")
    .update({ member_id: member.id, claimed_at: ctx.now });
  return updated ? { claimed: true, memberId: member.id } : { claimed: false, reason: "used" };
}

/**
 * The browser's "Continue": completes a confirmed handoff exactly once (of two completions at
 * once, one wins) and answers the member it signs in; null when it cannot be completed.
 */
export async function completeHandoff(ctx: DomainContext, handoff: BrowserHandoff): Promise<string | null> {
  if (handoff.state !== "confirmed" || !handoff.row.member_id) return null;
  const updated = await portalHandoffsTable
    .rows(ctx)
    .where({ id: handoff.row.id })
    .whereNull("completed_at")
    .whereNotNull("member_id")
    .where("expires_at", ">", ctx.now)
    .update({ completed_at: ctx.now });
  return updated ? handoff.row.member_id : null;
}
