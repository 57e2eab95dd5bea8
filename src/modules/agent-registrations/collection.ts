// The agent's side of the end of a registration: polling the token endpoint with the claim token
// (grant urn:example:agent-auth:grant-type:claim). Every poll is noted (slow_down compares with
// the last one); the first poll after the creator confirmed mints the personal access token - for
// the creator, on the team they confirmed with, the abilities kept at confirmation, no expiry,
// kind agent_registration under the client's name - and marks the registration collected, in one
// transaction with its activity entries.
import { createDomainContext, type Actor, type Db } from "../../db/tenant.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { mintToken } from "../tokens/tokens.ts";
import type { Environment } from "../tokens/environment.ts";
import { grantedAbilities } from "./confirmation.ts";
import {
  AgentRegistrationError,
  claimTokenExpired,
  hashClaimToken,
  POLL_INTERVAL_SECONDS,
  registrations,
  type RegistrationRow,
} from "./registrations.ts";

export interface CollectedToken {
  accessToken: string;
  abilities: string[];
  registrationId: string;
  tokenId: string;
}

const refusal = (code: string, message: string) => new AgentRegistrationError(code, message);

/**
 * One poll. Refuses with AgentRegistrationError coded as the token endpoint answers:
 * invalid_claim_token, expired_token (30 minutes over, ended by wrong codes, or already
 * collected), slow_down, authorization_pending.
 */
export async function collectAgentToken(
  db: Db,
  input: { claimToken: string; now: Date; requestId?: string | null; environment?: Environment },
): Promise<CollectedToken> {
  const { now } = input;
  // Decided inside the transaction, thrown after it commits: the poll's time must persist.
  const outcome = await db.transaction(async (trx): Promise<CollectedToken | AgentRegistrationError> => {
    const row = (await registrations(trx)
      .where({ claim_token_hash: hashClaimToken(input.claimToken) })
      .forUpdate()
      .first()) as RegistrationRow | undefined;
    if (!row) return refusal("invalid_claim_token", "The claim token is not known.");
    if (row.state === "collected") return refusal("expired_token", "The token of this registration was collected already.");
    if (row.state === "expired" || claimTokenExpired(row, now)) {
      if (row.state === "registered") await registrations(trx).where({ id: row.id }).update({ state: "expired", updated_at: now });
      return refusal("expired_token", "The registration has ended (30 minutes over or too many wrong codes): register again.");
    }
    const last = row.last_polled_at ? new Date(row.last_polled_at).getTime() : null;
    await registrations(trx).where({ id: row.id }).update({ last_polled_at: now });
    if (last !== null && now.getTime() - last < POLL_INTERVAL_SECONDS * 1000)
      return refusal("slow_down", `Poll at most every ${POLL_INTERVAL_SECONDS} seconds.`);
    if (row.state === "registered") return refusal("authorization_pending", "The creator has not confirmed the registration yet.");
    return mintFor(trx, row, now, input.requestId ?? null, input.environment ?? "live");
  });
  if (outcome instanceof AgentRegistrationError) throw outcome;
  return outcome;
}

async function mintFor(trx: Db, row: RegistrationRow, now: Date, requestId: string | null, environment: Environment): Promise<CollectedToken> {
  // The creator's confirmation is what authorises this: the entries name them (actor_kind human),
  // with no credential of theirs in this request.
  const actor: Actor & { userId: string } = {
    userId: row.confirmed_user_id!,
    teamId: row.confirmed_team_id!,
    projectIds: null,
    kind: "human",
    credentialKind: null,
    requestId,
  };
  const ctx = createDomainContext(trx, actor, now);
  // Kept at confirmation (bounded by the creator's place then); a row confirmed before that was
  // kept is bounded now. Mintable since registration; null = no minting token narrows them.
  const abilities = row.granted_abilities ?? (await grantedAbilities(trx, actor.userId, actor.teamId, row.abilities));
  const request = { name: row.client_name, abilities, kind: "agent_registration" as const, projectIds: null, expiresAt: null };
  const minted = await mintToken(ctx, request, null, environment);
  await registrations(trx).where({ id: row.id }).update({ state: "collected", token_id: minted.data.id, collected_at: now, updated_at: now });
  // minted_credential_id, not token_id: properties named like a secret are dropped from entries.
  await recordActivity(ctx, {
    event: "collected",
    description: `Agent registration "${row.client_name}" collected its token`,
    subjectType: "agent-registration",
    subjectId: row.id,
    properties: { client_name: row.client_name, minted_credential_id: minted.data.id, abilities: minted.data.abilities },
  });
  return { accessToken: minted.token, abilities: minted.data.abilities, registrationId: row.id, tokenId: minted.data.id };
}
