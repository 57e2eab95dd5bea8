// The portal's member sign-in through a connector (description: the `auth_<token>` start payload,
// "portal sign-in handoff"). The browser starts a handoff bound to its portal cookie and opens the
// bot with `/start auth_<token>`; the bot proposes it for the platform account that pressed Start
// (that account's member of the project) and sends that account a one-time confirmation link,
// whose page names the browser that asked and when; confirming there claims the handoff; the
// browser that started it then completes it once, within ten minutes, into a portal session. A
// start link passed to someone else thus signs nobody in unseen. The token and the confirmation
// secret are stored as their SHA-256 (the token also sealed with APP_KEY so the waiting page can
// show the link again), the browser key as its SHA-256.
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

/** A new handoff of the project through `installation`, bound to the browser holding `browserKey` (`browser` names it in a few words). */
export async function startHandoff(
  ctx: DomainContext,
  input: {
    appKey: Buffer;
    installation: InstallationRow;
    browserKey: string;
    browser: string;
    returnTo?: string | null;
    startPayload?: string | null;
  },
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
    browser_summary: input.browser,
    expires_at: new Date(ctx.now.getTime() + HANDOFF_TTL_MS),
    created_at: ctx.now,
    return_to: input.returnTo ?? null,
    start_payload: input.startPayload ?? null,
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

export type ProposeResult =
  { proposed: true; secret: string; browser: string; requestedAt: Date } | { proposed: false; reason: "unknown" | "expired" | "used" | "banned" };

/**
 * The bot received `/start auth_<token>` from `account`: proposes the handoff for that account's
 * member of the project (found or created) and answers the secret of the confirmation link, to be
 * sent in that account's chat only. Nothing is signed in yet; pressing Start again replaces the
 * link. Only the installation the link pointed at may propose it, before it expires.
 */
export async function proposeHandoff(
  ctx: DomainContext,
  input: { installation: InstallationRow; account: PlatformAccount; token: string },
): Promise<ProposeResult> {
  const row = (await portalHandoffsTable
    .rows(ctx)
    .where({ token_hash: sha256Hex(input.token), installation_id: input.installation.id })
    .forUpdate()
    .first()) as HandoffRow | undefined;
  if (!row) return { proposed: false, reason: "unknown" };
  const state = stateOf(row, ctx.now);
  if (state === "expired") return { proposed: false, reason: "expired" };
  if (state !== "waiting") return { proposed: false, reason: "used" };
  const { member } = await findOrCreateMember(ctx, row.project_id, input.account);
  if (member.status === "banned") return { proposed: false, reason: "banned" };
  const secret = randomToken(32);
  await portalHandoffsTable
    .rows(ctx)
    .where({ id: row.id })
    .update({ proposed_member_id: member.id, confirm_hash: sha256Hex(secret) });
  return { proposed: true, secret, browser: row.browser_summary, requestedAt: new Date(row.created_at) };
}

/** The project's handoff a confirmation link's `secret` names (locked), with its state; null for any other secret. */
export async function handoffToConfirm(
  ctx: DomainContext,
  input: { projectId: string; secret: string },
): Promise<{ row: HandoffRow & { proposed_member_id: string }; state: HandoffState } | null> {
  const row = (await portalHandoffsTable
    .rows(ctx)
    .where({ confirm_hash: sha256Hex(input.secret), project_id: input.projectId })
    .forUpdate()
    .first()) as HandoffRow | undefined;
  if (!row?.proposed_member_id) return null;
  return { row: row as HandoffRow & { proposed_member_id: string }, state: stateOf(row, ctx.now) };
}

/** The confirmation page's button: the proposed member claims the waiting handoff, once. */
export async function confirmHandoff(ctx: DomainContext, input: { projectId: string; secret: string }): Promise<boolean> {
  const found = await handoffToConfirm(ctx, input);
  if (!found || found.state !== "waiting") return false;
  const updated = await portalHandoffsTable
    .rows(ctx)
    .where({ id: found.row.id })
    .whereNull("member_id")
    .update({ member_id: found.row.proposed_member_id, claimed_at: ctx.now });
  return updated === 1;
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

/**
 * A sign-in through the platform's OAuth (Discord): the platform itself vouched for the member, so
 * the waiting handoff is claimed and completed at once, exactly once, before it expires.
 */
export async function completePlatformHandoff(ctx: DomainContext, handoff: BrowserHandoff, memberId: string): Promise<boolean> {
  if (handoff.state !== "waiting") return false;
  const updated = await portalHandoffsTable
    .rows(ctx)
    .where({ id: handoff.row.id })
    .whereNull("member_id")
    .whereNull("completed_at")
    .where("expires_at", ">", ctx.now)
    .update({ member_id: memberId, claimed_at: ctx.now, completed_at: ctx.now });
  return updated === 1;
}
