// A creator links their account on a connector's platform by opening a one-time link into a bot of
// their team: the authorization host's "Linked accounts" page makes it, the bot redeems it for the
// account that pressed Start (linkIdentity: the first linked account becomes primary). The link is
// the description's internal `auth_<token>` start payload; a creator's token starts with "c-",
// which a portal sign-in token (letters and digits only) never does, so the bot tells them apart
// without a lookup. Only the token's SHA-256 is kept; it works once, for ten minutes, through the
// installation it was made for (so the link's activity entry lands in the creator's own team).
import { randomUUID } from "node:crypto";
import { ApiError, notFound } from "../../errors.ts";
import { inTransaction, type DomainContext } from "../../db/tenant.ts";
import { randomToken, sha256Hex } from "../../security/crypto.ts";
import type { PlatformAccount } from "../members/members.ts";
import type { InstallationRow } from "../connectors/tables.ts";
import { AUTH_PAYLOAD_PREFIX } from "../portal/handoffs.ts";
import { linkIdentity, personal } from "./identities.ts";

export const IDENTITY_LINK_TTL_MS = 10 * 60_000;
/** What follows `auth_` in a creator's identity link (a portal sign-in token has no hyphen). */
export const IDENTITY_TOKEN_PREFIX = "c-";

type Creator = DomainContext & { actor: { userId: string } };

interface LinkTokenRow {
  id: string;
  user_id: string;
  installation_id: string;
  token_hash: string;
  expires_at: Date;
  used_at: Date | null;
}

/** Whether an `auth_<token>` start payload's token is a creator's identity link. */
export const isIdentityLinkToken = (token: string) => token.startsWith(IDENTITY_TOKEN_PREFIX);

/** A new one-time link for the creator through `installation` (of their team): the start payload and when it expires. */
export async function startIdentityLink(ctx: Creator, installation: InstallationRow): Promise<{ payload: string; expiresAt: Date }> {
  if (installation.team_id !== ctx.actor.teamId) throw notFound("installation");
  const token = `${IDENTITY_TOKEN_PREFIX}${randomToken(40)}`;
  const expiresAt = new Date(ctx.now.getTime() + IDENTITY_LINK_TTL_MS);
  await personal(ctx)("identity_link_tokens").insert({
    id: randomUUID(),
    user_id: ctx.actor.userId,
    installation_id: installation.id,
    token_hash: sha256Hex(token),
    expires_at: expiresAt,
    created_at: ctx.now,
  });
  return { payload: `${AUTH_PAYLOAD_PREFIX}${token}`, expiresAt };
}

export type IdentityLinkResult =
  | { linked: true; identity: Awaited<ReturnType<typeof linkIdentity>>; already: boolean }
  | { linked: false; reason: "unknown" | "expired" | "used" | "linked_elsewhere" };

/**
 * The bot received `/start auth_<token>` with a creator's token from `account`: links that account
 * to the token's creator, once. A token made for another installation is unknown here; an account
 * already linked to another creator is refused and the token stays usable (by the right account).
 */
export async function redeemIdentityLink(
  ctx: DomainContext,
  input: { installation: InstallationRow; account: PlatformAccount; token: string },
): Promise<IdentityLinkResult> {
  const db = personal(ctx);
  const row = (await db("identity_link_tokens")
    .where({ token_hash: sha256Hex(input.token), installation_id: input.installation.id })
    .forUpdate()
    .first()) as LinkTokenRow | undefined;
  if (!row) return { linked: false, reason: "unknown" };
  if (row.used_at) return { linked: false, reason: "used" };
  if (new Date(row.expires_at) <= ctx.now) return { linked: false, reason: "expired" };
  const creator: Creator = { ...ctx, actor: { ...ctx.actor, userId: row.user_id } };
  const before = (await db("identities")
    .where({ user_id: row.user_id, connector: input.account.connectorKey, account_id: input.account.externalUserId })
    .first("id")) as { id: string } | undefined;
  try {
    // A savepoint: a refusal leaves nothing behind in the bot's transaction.
    const identity = await inTransaction(creator, (trx) =>
      linkIdentity(trx as Creator, {
        connector: input.account.connectorKey,
        accountId: input.account.externalUserId,
        displayName: input.account.displayName,
      }),
    );
    await db("identity_link_tokens").where({ id: row.id }).update({ used_at: ctx.now, identity_id: identity.id });
    return { linked: true, identity, already: before !== undefined };
  } catch (err) {
    if (err instanceof ApiError && err.context?.reason === "linked_elsewhere") return { linked: false, reason: "linked_elsewhere" };
    throw err;
  }
}
