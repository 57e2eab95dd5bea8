// What a member granted the platform's application when they signed in through it (Discord's
// OAuth2: identify and guilds.join): sealed with APP_KEY bound to the member, kept so that the
// connector sweep can add them to the server once they pay, and refreshed when it nears expiry.
import { randomUUID } from "node:crypto";
import { createDomainContext, systemActor, unscoped, type Db, type DomainContext } from "../../db/tenant.ts";
import { decrypt, encrypt } from "../../security/crypto.ts";
import { driverFor } from "./drivers/index.ts";
import { PlatformError, type MemberGrant } from "./drivers/driver.ts";
import type { ConnectorEnvironment } from "./environment.ts";
import { memberGrantsTable } from "./tables.ts";

const binding = (memberId: string) => `member_platform_grants:${memberId}`;
/** A grant this close to its expiry is refreshed before use. */
const REFRESH_AHEAD_MS = 60_000;

export async function rememberMemberGrant(
  ctx: DomainContext,
  appKey: Buffer,
  member: { id: string; project_id: string; connector_key: string },
  grant: MemberGrant,
): Promise<void> {
  const sealed = encrypt(appKey, JSON.stringify(grant), binding(member.id));
  await memberGrantsTable
    .insert(ctx, {
      id: randomUUID(),
      project_id: member.project_id,
      member_id: member.id,
      connector_key: member.connector_key,
      sealed,
      expires_at: new Date(grant.expiresAt),
      created_at: ctx.now,
      updated_at: ctx.now,
    })
    .onConflict(["member_id"])
    .merge(["sealed", "expires_at", "updated_at"]);
}

/**
 * The member's grant, refreshed with the platform when it nears expiry (the refreshed one is kept);
 * null when the member never signed in through the platform. A refused refresh throws
 * PlatformError: the member signs in again.
 */
export async function memberGrantOf(
  db: Db,
  env: Pick<ConnectorEnvironment, "platforms" | "appKey">,
  member: { id: string; team_id: string; connector_key: string },
  now: Date,
): Promise<MemberGrant | null> {
  const row = (await unscoped(
    db,
    "the connector sweep: the grant of the member it adds to a server, on the member's team",
  )("member_platform_grants")
    .where({ member_id: member.id, team_id: member.team_id })
    .first("sealed", "expires_at")) as { sealed: string; expires_at: Date } | undefined;
  if (!row) return null;
  const grant = JSON.parse(decrypt(env.appKey, row.sealed, binding(member.id))) as MemberGrant;
  if (new Date(row.expires_at).getTime() - now.getTime() > REFRESH_AHEAD_MS) return grant;
  const signIn = driverFor(member.connector_key, env.platforms)?.signIn;
  if (!signIn) throw new PlatformError("unsupported", `The ${member.connector_key} connector has no sign-in to refresh.`);
  const refreshed = await signIn.refresh(grant);
  const ctx = createDomainContext(db, systemActor(member.team_id), now);
  await memberGrantsTable
    .rows(ctx)
    .where({ member_id: member.id })
    .update({
      sealed: encrypt(env.appKey, JSON.stringify(refreshed), binding(member.id)),
      expires_at: new Date(refreshed.expiresAt),
      updated_at: now,
    });
  return refreshed;
}
