// Agent registrations (service description, "Agent registration (no browser needed)"): an agent
// names its creator by email and the abilities it wants; the creator confirms a 6-digit code on
// the claim page; the agent collects one personal access token. Rows belong to no team until
// confirmed, so every access here is unscoped, with its reason. Secrets (claim token, user code)
// are stored only as SHA-256 digests.
import { randomInt, randomUUID } from "node:crypto";
import { abilityCatalog } from "../../../generated/catalog.ts";
import { unscoped, type Db } from "../../db/tenant.ts";
import { isOneLine } from "../../one-line.ts";
import { randomToken, safeEqual, sha256Hex } from "../../security/crypto.ts";
import { isEmailAddress, normalizeEmail } from "../account/creators.ts";
import { isAbility } from "../tokens/abilities.ts";

/** Claim token life (Limits: 30 minutes). */
export const CLAIM_TOKEN_LIFE_MS = 30 * 60_000;
/** User code life (Limits: 10 minutes). */
export const USER_CODE_LIFE_MS = 10 * 60_000;
/** Wrong codes that end a registration (Limits: 5). */
export const MAX_WRONG_CODES = 5;
/** Seconds an agent waits between token-endpoint polls (faster answers slow_down). */
export const POLL_INTERVAL_SECONDS = 5;
const CLAIM_TOKEN_PREFIX = "sbc_";

export type RegistrationState = "registered" | "claimed" | "expired" | "collected";
export type RegistrationType = "service_auth" | "identity_assertion";

/**
 * A refusal, with the service description's error code (the auth routes answer it as
 * `{error, error_description}`); the claim page's codes are listed on confirmAgentRegistration.
 * Messages never name the creator's address.
 */
export class AgentRegistrationError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface RegistrationRow {
  id: string;
  registration_type: RegistrationType;
  client_name: string;
  login_email: string;
  /** What the agent asked for (post_claim_scopes). */
  abilities: string[];
  /** Set at confirmation: the asked-for abilities the confirming creator's place on the team granted. */
  granted_abilities: string[] | null;
  claim_token_hash: string;
  claim_expires_at: Date;
  user_code_hash: string;
  user_code_expires_at: Date;
  wrong_code_count: number;
  state: RegistrationState;
  confirmed_user_id: string | null;
  confirmed_team_id: string | null;
  token_id: string | number | null;
  last_polled_at: Date | null;
  created_at: Date;
}

/** The registration rows: no team owns one before it is confirmed. */
export const registrations = (from: Db) =>
  unscoped(from, "agent registrations belong to no team until their creator confirms")("agent_registrations");

/** Every read-only mintable ability (actions view-any, view, read): what an omitted scope asks for. */
export const READ_ONLY_ABILITIES: readonly string[] = Object.entries(abilityCatalog as Record<string, { mintable: boolean }>)
  .filter(([ability, entry]) => entry.mintable && ["view-any", "view", "read"].includes(ability.split(":")[1]!))
  .map(([ability]) => ability)
  .sort();

export interface RegistrationRequest {
  type: RegistrationType;
  email: string;
  clientName: string;
  abilities: string[];
}

const refuse = (code: string, message: string) => new AgentRegistrationError(code, message);

/** The request body of POST /agent/identity, checked in the order the description lists its errors. */
export function parseRegistrationRequest(body: Record<string, unknown>): RegistrationRequest {
  const { type } = body;
  if (type === "anonymous")
    throw refuse("anonymous_not_enabled", "Anonymous registration is not enabled: name the creator with service_auth and login_hint.");
  let email: unknown;
  if (type === "service_auth") {
    email = body.login_hint;
    if (email === undefined) throw refuse("invalid_request", "login_hint (the creator's email) is required with service_auth.");
  } else if (type === "identity_assertion") {
    if (body.assertion_type !== "verified_email") throw refuse("unsupported_assertion_type", "The only assertion_type supported is verified_email.");
    email = body.assertion;
    if (email === undefined) throw refuse("invalid_request", "assertion (the creator's email) is required with identity_assertion.");
  } else {
    throw refuse("invalid_request", "type must be service_auth (or the legacy identity_assertion).");
  }
  if (typeof email !== "string" || !isEmailAddress(normalizeEmail(email))) throw refuse("invalid_request", "login_hint is not an email address.");
  const clientName = body.client_name;
  if (typeof clientName !== "string" || clientName.trim() === "" || clientName.length > 255)
    throw refuse("invalid_request", "client_name is required: 1 to 255 characters shown to the creator.");
  // A name is one line (the spec's Name): it becomes the claimed token's name, which alerts carry.
  if (!isOneLine(clientName)) throw refuse("invalid_request", "client_name must be one line, without line breaks or control characters.");
  return { type, email: normalizeEmail(email), clientName: clientName.trim(), abilities: requestedAbilities(body.scope) };
}

function requestedAbilities(scope: unknown): string[] {
  if (scope === undefined || scope === null) return [...READ_ONLY_ABILITIES];
  if (typeof scope !== "string") throw refuse("invalid_request", "scope must be a string of space-separated abilities.");
  const values = scope.split(/\s+/).filter(Boolean);
  if (!values.length) throw refuse("invalid_scope", "scope names no ability; omit it for every read-only ability.");
  const refused = values.filter((v) => !isAbility(v) || !(abilityCatalog as Record<string, { mintable: boolean }>)[v]!.mintable);
  if (refused.length) throw refuse("invalid_scope", `Not an ability a token can be minted with: ${refused.join(", ")}.`);
  return [...new Set(values)].sort();
}

export const hashClaimToken = (claimToken: string) => sha256Hex(claimToken);
/** The user code's digest is bound to its registration (a 6-digit code alone is guessable offline). */
export const hashUserCode = (registrationId: string, code: string) => sha256Hex(`${registrationId}:${code}`);
export const codeMatches = (row: RegistrationRow, code: string) => /^\d{6}$/.test(code) && safeEqual(row.user_code_hash, hashUserCode(row.id, code));

/** A fresh 6-digit code (leading zeros kept). */
const newUserCode = () => String(randomInt(1_000_000)).padStart(6, "0");

export interface ClaimAttempt {
  userCode: string;
  expiresAt: Date;
}

/** Stores a registration; the claim token and the user code are returned here only. */
export async function createAgentRegistration(db: Db, request: RegistrationRequest, now: Date) {
  const id = randomUUID();
  const claimToken = `${CLAIM_TOKEN_PREFIX}${randomToken(40)}`;
  const userCode = newUserCode();
  const row = {
    id,
    registration_type: request.type,
    client_name: request.clientName,
    login_email: request.email,
    abilities: JSON.stringify(request.abilities),
    claim_token_hash: hashClaimToken(claimToken),
    claim_expires_at: new Date(now.getTime() + CLAIM_TOKEN_LIFE_MS),
    user_code_hash: hashUserCode(id, userCode),
    user_code_expires_at: new Date(now.getTime() + USER_CODE_LIFE_MS),
    state: "registered",
    created_at: now,
    updated_at: now,
  };
  await registrations(db).insert(row);
  return {
    id,
    type: request.type,
    abilities: request.abilities,
    claimToken,
    claimExpiresAt: row.claim_expires_at,
    attempt: { userCode, expiresAt: row.user_code_expires_at } satisfies ClaimAttempt,
  };
}

/** Whether the registration has ended by time (its claim token's 30 minutes are over). */
export const claimTokenExpired = (row: RegistrationRow, now: Date) => new Date(row.claim_expires_at).getTime() <= now.getTime();

/**
 * POST /agent/identity/claim: a fresh user code for an open registration (the old one stops
 * working). Wrong codes already typed still count.
 */
export async function renewUserCode(
  db: Db,
  input: { claimToken: string; email: string; now: Date },
): Promise<ClaimAttempt & { registrationId: string }> {
  return db.transaction(async (trx) => {
    const row = (await registrations(trx)
      .where({ claim_token_hash: hashClaimToken(input.claimToken) })
      .forUpdate()
      .first()) as RegistrationRow | undefined;
    if (!row) throw refuse("invalid_claim_token", "The claim token is not known.");
    if (normalizeEmail(input.email) !== row.login_email) throw refuse("email_mismatch", "The email is not the one this registration names.");
    if (row.state === "claimed" || row.state === "collected")
      throw refuse("claimed_or_in_flight", "The creator has confirmed this registration: poll the token endpoint.");
    if (row.state === "expired" || claimTokenExpired(row, input.now))
      throw refuse("claim_expired", "The registration has ended (30 minutes over or too many wrong codes): register again.");
    const userCode = newUserCode();
    const expiresAt = new Date(input.now.getTime() + USER_CODE_LIFE_MS);
    await registrations(trx)
      .where({ id: row.id })
      .update({ user_code_hash: hashUserCode(row.id, userCode), user_code_expires_at: expiresAt, updated_at: input.now });
    return { registrationId: row.id, userCode, expiresAt };
  });
}
