// Personal access tokens: sbt_<environment>_<id>_<secret> (sbt_live_ on production, sbt_test_ on a
// sandbox: ./environment.ts). Only a SHA-256 of the secret is stored; a token
// acts as its creator on exactly one team, optionally restricted to an allow-list of projects.
import { ApiError, notFound } from "../../errors.ts";
import { randomToken, safeEqual, sha256Hex } from "../../security/crypto.ts";
import type { AbilityValue } from "../../../generated/catalog.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { alertTokenMinted } from "../alerts/producers.ts";
import { holdsAbility, isAbility, isRetired } from "./abilities.ts";
import { assertProjectsVisible } from "../projects/tables.ts";
import { tokensTable } from "./tables.ts";
import { afterCommit, unscoped, type Db, type DomainContext } from "../../db/tenant.ts";
import { narrowAbilities, teamGrantsOf, type TeamGrants } from "../roles/grants.ts";
import type { PageWindow } from "../../db/pages.ts";
import { sortedPage } from "../../db/pages.ts";
import { credentialPrefix, type Environment } from "./environment.ts";

const TOKEN_SHAPES: Record<Environment, RegExp> = {
  live: /^sbt_live_([1-9][0-9]{0,17})_([A-Za-z0-9]{20,128})$/,
  test: /^sbt_test_([1-9][0-9]{0,17})_([A-Za-z0-9]{20,128})$/,
};
/** last_used_at is written at most this often per token, not on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

export type TokenKind = "personal" | "agent_registration";

/**
 * Tokens belong to their team (and to their creator, which the queries below add). Not narrowed
 * by the project allow-list: a token's own allow-list is a jsonb list, compared in visibleTokens.
 */

interface TokenRow {
  id: string | number;
  user_id: string;
  team_id: string | null;
  name: string;
  kind: TokenKind;
  secret_hash: string;
  abilities: string[];
  project_ids: string[] | null;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function presentToken(row: TokenRow) {
  const scopes = [...(row.team_id ? [`scope:team:${row.team_id}`] : []), ...(row.project_ids ?? []).map((id) => `scope:project:${id}`)];
  return {
    id: String(row.id),
    name: row.name,
    kind: row.kind,
    abilities: [...row.abilities].sort() as AbilityValue[],
    scopes,
    last_used_at: iso(row.last_used_at),
    expires_at: iso(row.expires_at),
    created_at: new Date(row.created_at).toISOString(),
  };
}

export interface MintRequest {
  name: string;
  abilities: readonly string[];
  /** Allow-list; null/undefined = inherit the minting actor's allow-list (none = every project). */
  projectIds?: readonly string[] | null;
  expiresAt?: Date | null;
  kind?: TokenKind;
}

/**
 * What the minting credential may hand on. `held` is null for the operator, who may grant any
 * ability except the retired ones.
 */
function checkGrant(abilities: readonly string[], held: ReadonlySet<string> | null) {
  const unknown = abilities.filter((a) => !isAbility(a));
  if (unknown.length)
    throw new ApiError("VALIDATION_FAILED", "Unknown abilities.", { fields: { abilities: unknown.map((a) => `${a} is not an ability`) } });
  const retired = abilities.filter(isRetired);
  if (retired.length) {
    throw new ApiError("VALIDATION_FAILED", "Retired abilities cannot be granted.", {
      fields: { abilities: retired.map((a) => `${a} is retired and refused on new tokens`) },
    });
  }
  if (held === null) return;
  if (abilities.includes("token:create")) {
    throw new ApiError("VALIDATION_FAILED", "token:create cannot be passed on.", {
      fields: { abilities: ["token:create can never be granted through the API"] },
    });
  }
  const missing = abilities.filter((a) => !holdsAbility(held, a));
  if (missing.length) {
    throw new ApiError("TOKEN_MISSING_ABILITY", `A token can grant only abilities it holds; this one does not hold ${missing.join(", ")}.`, {
      context: { required_ability: missing[0], missing_abilities: missing },
      remediation: "Grant only abilities the calling token holds, or mint from a token that holds them.",
    });
  }
}

/**
 * Mints a token for the actor's creator on the actor's team. `held` are the minting token's
 * abilities, or null when the operator mints (CLI, first start). `environment` is the deployment's
 * (its prefix starts the token); every caller in src/ passes it, the default serves tests.
 */
export async function mintToken(
  ctx: DomainContext & { actor: { userId: string } },
  request: MintRequest,
  held: ReadonlySet<string> | null,
  environment: Environment = "live",
) {
  const { actor } = ctx;
  const abilities = [...new Set(request.abilities)].sort();
  checkGrant(abilities, held);
  if (request.expiresAt && request.expiresAt.getTime() <= ctx.now.getTime()) {
    throw new ApiError("VALIDATION_FAILED", "The expiry must be in the future.", { fields: { expires_at: ["must be in the future"] } });
  }
  let projectIds: readonly string[] | null = request.projectIds ?? null;
  if (projectIds !== null) await assertProjectsVisible(ctx, projectIds);
  else projectIds = actor.projectIds;

  const secret = randomToken(40);
  const fields: Omit<TokenRow, "id"> = {
    user_id: actor.userId,
    team_id: actor.teamId,
    name: request.name,
    kind: request.kind ?? "personal",
    secret_hash: sha256Hex(secret),
    abilities,
    project_ids: projectIds === null ? null : [...projectIds].sort(),
    last_used_at: null,
    expires_at: request.expiresAt ?? null,
    revoked_at: null,
    created_at: ctx.now,
  };
  const [inserted] = (await tokensTable
    .insert(ctx, {
      ...fields,
      abilities: JSON.stringify(fields.abilities),
      project_ids: fields.project_ids === null ? null : JSON.stringify(fields.project_ids),
    })
    .returning("id")) as { id: string | number }[];
  const row: TokenRow = { id: String(inserted!.id), ...fields };
  const token = presentToken(row);
  await recordActivity(ctx, {
    event: "created",
    description: `Personal access token "${request.name}" minted`,
    subjectType: "token",
    subjectId: token.id,
    properties: { name: request.name, kind: token.kind, abilities, scopes: token.scopes, expires_at: token.expires_at },
  });
  await alertTokenMinted(ctx, { id: token.id, name: request.name, abilities });
  return { data: token, token: `${credentialPrefix("sbt", environment)}${token.id}_${secret}` };
}

/** Tokens of the actor's creator on the actor's team that the actor may see. */
function visibleTokens(ctx: DomainContext) {
  const q = tokensTable.rows(ctx).where({ user_id: ctx.actor.userId }).whereNull("revoked_at");
  // A restricted token sees only tokens restricted to projects inside its own allow-list.
  if (ctx.actor.projectIds !== null) q.whereNotNull("project_ids").andWhereRaw("project_ids <@ ?::jsonb", [JSON.stringify(ctx.actor.projectIds)]);
  return q;
}

/** Sort expressions of the offered columns: names compare case-insensitively on every backend. */
const TOKEN_SORT: Record<string, string> = {
  created_at: "created_at",
  name: "lower(name)",
  last_used_at: "last_used_at",
  expires_at: "expires_at",
};

export async function listTokens(ctx: DomainContext, window: PageWindow) {
  const { rows, total } = await sortedPage<TokenRow>(visibleTokens(ctx).select("*"), window, TOKEN_SORT);
  return { rows: rows.map(presentToken), total };
}

/** One token the list would show; any other id (another creator's or team's, revoked, outside the allow-list) is not found. */
export async function getToken(ctx: DomainContext, id: string) {
  const row = (await visibleTokens(ctx).where({ id }).first()) as TokenRow | undefined;
  if (!row) throw notFound("token");
  return presentToken(row);
}

export async function deleteToken(ctx: DomainContext, id: string): Promise<void> {
  const row = await visibleTokens(ctx).clone().where({ id }).forUpdate().first();
  if (!row) throw notFound("token");
  await tokensTable.rows(ctx).where({ id: row.id }).update({ revoked_at: ctx.now });
  afterCommit(ctx, { kind: "credentials-revoked", tokenIds: [String(row.id)] });
  await recordActivity(ctx, {
    event: "deleted",
    description: `Personal access token "${row.name}" deleted`,
    subjectType: "token",
    subjectId: String(row.id),
    properties: { name: row.name },
  });
}

export interface ResolvedToken {
  tokenId: string;
  userId: string;
  /** Null when the token carries no team scope or its creator can no longer see that team. */
  teamId: string | null;
  /** What the token may do team-wide: its abilities that its creator's place on the team grants. */
  abilities: ReadonlySet<string>;
  /** What it may also do on some projects (its creator's groups there), beyond `abilities`. */
  projectAbilities: ReadonlyMap<string, ReadonlySet<string>>;
  projectIds: readonly string[] | null;
}

/**
 * What a token id resolves to, before its secret is checked: the facts authentication needs,
 * plain JSON so the pipeline can keep it briefly in the KV store.
 */
export interface TokenRecord {
  id: string;
  userId: string;
  /** The token's team when its creator still owns or belongs to it; null otherwise. */
  visibleTeamId: string | null;
  /** What the creator's place on that team grants (role, groups); null when not visible. */
  grants: TeamGrants | null;
  secretHash: string;
  abilities: string[];
  projectIds: string[] | null;
  /** ISO 8601, or null. */
  expiresAt: string | null;
}

/** The id and secret of a bearer value shaped like one of our tokens of `environment`, or null. */
export function parseBearer(bearer: string, environment: Environment = "live"): { id: string; secret: string } | null {
  const match = TOKEN_SHAPES[environment].exec(bearer);
  return match ? { id: match[1]!, secret: match[2]! } : null;
}

/**
 * The live (not deleted) token with this id, with what its creator's place on its team grants
 * (nothing when they no longer own or belong to it); null when there is none. Notes the use
 * (last_used_at, at most once a minute).
 */
export async function lookupToken(from: Db, id: string, now: Date): Promise<TokenRecord | null> {
  const db = unscoped(from, "authentication: a bearer names its token before any team is known");
  const row = (await db("personal_access_tokens").where({ id }).whereNull("revoked_at").first()) as TokenRow | undefined;
  if (!row) return null;
  if (!row.last_used_at || now.getTime() - new Date(row.last_used_at).getTime() >= LAST_USED_RESOLUTION_MS) {
    await db("personal_access_tokens").where({ id: row.id }).update({ last_used_at: now });
  }
  return credentialRecord(db, row, row.abilities, row.project_ids);
}

/** What a stored bearer credential's row has in common (personal access tokens, OAuth access tokens). */
export interface CredentialRow {
  id: string | number;
  user_id: string;
  team_id: string | null;
  secret_hash: string;
  expires_at: Date | null;
}

/**
 * The record of a live credential row carrying `abilities`: with what its creator's place on its
 * team grants now (nothing when they no longer own or belong to it).
 */
export async function credentialRecord(db: Db, row: CredentialRow, abilities: string[], projectIds: string[] | null): Promise<TokenRecord> {
  const grants = row.team_id === null ? null : await teamGrantsOf(db, row.user_id, row.team_id);
  return {
    id: String(row.id),
    userId: row.user_id,
    visibleTeamId: grants ? row.team_id : null,
    grants,
    secretHash: row.secret_hash,
    abilities,
    projectIds,
    expiresAt: iso(row.expires_at),
  };
}

/** The token a record and a presented secret stand for, or null (wrong secret, or expired). */
export function verifyToken(record: TokenRecord, secret: string, now: Date): ResolvedToken | null {
  return verifyTokenHash(record, sha256Hex(secret), now);
}

export function expired(record: TokenRecord, now: Date): boolean {
  return record.expiresAt !== null && Date.parse(record.expiresAt) <= now.getTime();
}

/** verifyToken for a caller that has hashed the presented secret already. */
export function verifyTokenHash(record: TokenRecord, secretHash: string, now: Date): ResolvedToken | null {
  if (!safeEqual(record.secretHash, secretHash)) return null;
  if (expired(record, now)) return null;
  const teamWide = narrowAbilities(record.abilities, record.grants?.roleAbilities ?? null);
  const projectAbilities = new Map<string, Set<string>>();
  for (const group of record.grants?.groupGrants ?? []) {
    const extra = narrowAbilities(record.abilities, group.abilities);
    for (const project of group.projectIds) {
      const set = projectAbilities.get(project) ?? new Set<string>();
      for (const ability of extra) set.add(ability);
      projectAbilities.set(project, set);
    }
  }
  return {
    tokenId: record.id,
    userId: record.userId,
    teamId: record.visibleTeamId,
    abilities: new Set(teamWide),
    projectAbilities,
    projectIds: record.projectIds,
  };
}

/** The token a bearer value names, or null when it is malformed, unknown, deleted or expired. */
export async function resolveToken(db: Db, bearer: string, now: Date, environment: Environment = "live"): Promise<ResolvedToken | null> {
  const parsed = parseBearer(bearer, environment);
  if (!parsed) return null;
  const record = await lookupToken(db, parsed.id, now);
  return record && verifyToken(record, parsed.secret, now);
}
