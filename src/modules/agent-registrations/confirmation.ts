// The creator's side of an agent registration: what the claim page shows, and the confirmation
// (the signed-in creator types the 6-digit code). Only the named creator may confirm; anyone else
// is refused without the page learning the address. A wrong code counts (5 end the registration),
// and that count is committed even though the attempt is refused. The token gets only the asked-for
// abilities the confirming creator's place on the team grants (as the tokens page bounds a mint),
// fixed at confirmation: a role raised later does not widen it.
import { createDomainContext, unscoped, type Actor, type Db } from "../../db/tenant.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { abilitiesGrantable, teamGrantsOf } from "../roles/grants.ts";
import { canSeeTeam } from "../teams/teams.ts";
import {
  AgentRegistrationError,
  claimTokenExpired,
  codeMatches,
  MAX_WRONG_CODES,
  registrations,
  type RegistrationRow,
  type RegistrationState,
} from "./registrations.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What the claim page shows before the creator confirms. */
export interface AgentRegistrationView {
  registration_id: string;
  client_name: string;
  /** What the agent asked for (post_claim_scopes). */
  abilities: string[];
  /** Those the collected token will carry: what the creator's place on the team grants (fixed once confirmed). */
  granted: string[];
  /** Those it will not carry: the creator's place on the team does not grant them. */
  dropped: string[];
  /** The team the token will act on: the one the creator is working in. */
  team: { id: string; name: string };
  state: RegistrationState;
  /** ISO 8601: when the current user code stops working, and when the registration ends. */
  user_code_expires_at: string;
  claim_token_expires: string;
}

async function emailOf(db: Db, userId: string): Promise<string | null> {
  const row = (await unscoped(db, "users belong to no team")("users").where({ id: userId }).first("email")) as { email: string } | undefined;
  return row?.email ?? null;
}

async function teamOf(db: Db, userId: string, teamId: string): Promise<{ id: string; name: string }> {
  if (!UUID.test(teamId) || !(await canSeeTeam(db, userId, teamId)))
    throw new AgentRegistrationError("team_not_visible", "You do not own or belong to this team.");
  const team = (await unscoped(db, "the claim page names the team the creator works in")("teams").where({ id: teamId }).first("id", "name")) as {
    id: string;
    name: string;
  };
  return team;
}

/** The asked-for abilities that `userId`'s place on `teamId` lets them hand to a token (none without a place there). */
export async function grantedAbilities(db: Db, userId: string, teamId: string, asked: readonly string[]): Promise<string[]> {
  const grants = await teamGrantsOf(db, userId, teamId);
  const allowed = grants ? abilitiesGrantable(grants) : new Set<string>();
  return asked.filter((a) => allowed.has(a)).sort();
}

/** The state a row is in at `now`: a registration whose 30 minutes are over has expired. */
function stateAt(row: RegistrationRow, now: Date): RegistrationState {
  return row.state === "registered" && claimTokenExpired(row, now) ? "expired" : row.state;
}

const wrongAccount = () => new AgentRegistrationError("wrong_account", "This registration names another account: sign in as the creator it names.");
const notFound = () => new AgentRegistrationError("not_found", "No such agent registration.");

/**
 * The registration as the claim page shows it to the signed-in creator (`userId`, working in
 * `teamId`). Refuses with AgentRegistrationError: not_found, wrong_account (another creator's;
 * the address is not named), team_not_visible. Ended or confirmed registrations are described
 * with their state (expired, claimed, collected): the page says so instead of asking for a code.
 */
export async function describeAgentRegistration(
  db: Db,
  input: { registrationId: string; userId: string; teamId: string; now: Date },
): Promise<AgentRegistrationView> {
  if (!UUID.test(input.registrationId)) throw notFound();
  const row = (await registrations(db).where({ id: input.registrationId }).first()) as RegistrationRow | undefined;
  if (!row) throw notFound();
  if (row.login_email !== (await emailOf(db, input.userId))) throw wrongAccount();
  const team = await teamOf(db, input.userId, input.teamId);
  const granted = row.granted_abilities ?? (await grantedAbilities(db, input.userId, team.id, row.abilities));
  return view(row, team, stateAt(row, input.now), granted);
}

function view(row: RegistrationRow, team: { id: string; name: string }, state: RegistrationState, granted: string[]): AgentRegistrationView {
  return {
    registration_id: row.id,
    client_name: row.client_name,
    abilities: [...row.abilities].sort(),
    granted: [...granted].sort(),
    dropped: row.abilities.filter((a) => !granted.includes(a)).sort(),
    team,
    state,
    user_code_expires_at: new Date(row.user_code_expires_at).toISOString(),
    claim_token_expires: new Date(row.claim_expires_at).toISOString(),
  };
}

export interface ConfirmInput {
  /** The registration the page was opened for (claim_url); omitted = the one of the creator's open registrations whose current code this is. */
  registrationId?: string;
  /** What the creator typed. */
  code: string;
  userId: string;
  /** The team the creator is working in: the collected token acts on it. */
  teamId: string;
  now: Date;
  requestId?: string | null;
}

/**
 * The code-only claim page's first step: the creator's open registration whose current code this
 * is, described for the team they work in (nothing is confirmed yet: the page shows the agent and
 * its abilities before the creator confirms). Refuses and counts wrong codes as
 * confirmAgentRegistration does.
 */
export function identifyAgentRegistration(db: Db, input: Omit<ConfirmInput, "registrationId" | "requestId">): Promise<AgentRegistrationView> {
  return decidedThenThrown(db, async (trx) => {
    const found = await matchingRegistration(trx, input);
    if (found instanceof AgentRegistrationError) return found;
    return view(found.match, found.team, "registered", await grantedAbilities(trx, input.userId, found.team.id, found.match.abilities));
  });
}

/**
 * Confirms a registration for the signed-in creator: state claimed, remembering the creator, the
 * team and the abilities granted; the agent's next poll collects the token. Refuses with
 * AgentRegistrationError: not_found; wrong_account (the signed-in account is not the named creator;
 * the address is not named); team_not_visible; already_confirmed; registration_expired (30 minutes
 * over or 5 wrong codes); code_expired (10 minutes over: the agent renews it); wrong_code (counted;
 * the 5th ends the registration and answers registration_expired); abilities_not_granted (the
 * creator's place on the team lacks one of the asked-for abilities: the token carries exactly the
 * post_claim_scopes the agent was promised, never more than the role grants, so it is all or
 * nothing; the registration stays open for someone whose role grants them).
 */
export function confirmAgentRegistration(db: Db, input: ConfirmInput): Promise<AgentRegistrationView> {
  return decidedThenThrown(db, async (trx) => {
    const found = await matchingRegistration(trx, input);
    if (found instanceof AgentRegistrationError) return found;
    const { match, team } = found;
    const granted = await grantedAbilities(trx, input.userId, team.id, match.abilities);
    const lacking = match.abilities.filter((a) => !granted.includes(a));
    if (lacking.length)
      return new AgentRegistrationError(
        "abilities_not_granted",
        `Your place on ${team.name} does not grant ${lacking.join(", ")}, which this agent asks for.`,
      );
    await registrations(trx)
      .where({ id: match.id })
      .update({
        state: "claimed",
        confirmed_user_id: input.userId,
        confirmed_team_id: team.id,
        confirmed_at: input.now,
        granted_abilities: JSON.stringify(granted),
        updated_at: input.now,
      });
    const actor: Actor = {
      userId: input.userId,
      teamId: team.id,
      projectIds: null,
      kind: "human",
      credentialKind: "session",
      requestId: input.requestId ?? null,
    };
    await recordActivity(createDomainContext(trx, actor, input.now), {
      event: "confirmed",
      description: `Agent registration "${match.client_name}" confirmed`,
      subjectType: "agent-registration",
      subjectId: match.id,
      properties: { client_name: match.client_name, abilities: granted, requested_abilities: match.abilities },
    });
    return view({ ...match, state: "claimed" }, team, "claimed", granted);
  });
}

/** Runs `decide` in a transaction and throws the refusal it returns only after COMMIT: a wrong code's count must persist. */
async function decidedThenThrown<T>(db: Db, decide: (trx: Db) => Promise<T | AgentRegistrationError>): Promise<T> {
  const outcome = await db.transaction(decide);
  if (outcome instanceof AgentRegistrationError) throw outcome;
  return outcome;
}

/** The open registration `input.code` is the current code of (rows locked), with the team; or the refusal, a wrong code counted. */
async function matchingRegistration(
  trx: Db,
  input: Omit<ConfirmInput, "requestId">,
): Promise<{ match: RegistrationRow; team: { id: string; name: string } } | AgentRegistrationError> {
  const email = await emailOf(trx, input.userId);
  const candidates = await candidatesFor(trx, input, email);
  const team = await teamOf(trx, input.userId, input.teamId);
  const open = candidates.filter((row) => stateAt(row, input.now) === "registered");
  if (!open.length) {
    const ended = candidates.some((row) => stateAt(row, input.now) === "expired");
    return new AgentRegistrationError(
      ended ? "registration_expired" : "already_confirmed",
      ended ? "This registration has ended: the agent registers again." : "This registration is already confirmed.",
    );
  }
  const match = open.find((row) => codeMatches(row, input.code.trim()));
  if (!match) {
    const ended = await countWrongCode(trx, open, input.now);
    return ended
      ? new AgentRegistrationError("registration_expired", `${MAX_WRONG_CODES} wrong codes ended this registration: the agent registers again.`)
      : new AgentRegistrationError("wrong_code", "That code is not right.");
  }
  if (new Date(match.user_code_expires_at).getTime() <= input.now.getTime())
    return new AgentRegistrationError("code_expired", "That code has expired: the agent asks for a fresh one.");
  return { match, team };
}

/** The rows a confirmation may be for, locked; only the named creator's. */
async function candidatesFor(trx: Db, input: Pick<ConfirmInput, "registrationId">, email: string | null): Promise<RegistrationRow[]> {
  if (input.registrationId !== undefined) {
    if (!UUID.test(input.registrationId)) throw notFound();
    const row = (await registrations(trx).where({ id: input.registrationId }).forUpdate().first()) as RegistrationRow | undefined;
    if (!row) throw notFound();
    if (row.login_email !== email) throw wrongAccount();
    return [row];
  }
  if (email === null) throw notFound();
  const rows = (await registrations(trx).where({ login_email: email }).whereIn("state", ["registered"]).forUpdate()) as RegistrationRow[];
  if (!rows.length) throw notFound();
  return rows;
}

/** Counts a wrong code against each open row; true when that ended the (only) registration. */
async function countWrongCode(trx: Db, rows: RegistrationRow[], now: Date): Promise<boolean> {
  let ended = false;
  for (const row of rows) {
    const count = row.wrong_code_count + 1;
    const state = count >= MAX_WRONG_CODES ? "expired" : row.state;
    ended ||= state === "expired" && rows.length === 1;
    await registrations(trx).where({ id: row.id }).update({ wrong_code_count: count, state, updated_at: now });
  }
  return ended;
}
