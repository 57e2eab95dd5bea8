// Who is acting, on which team, through what: what every domain function receives.
import type { Knex } from "knex";

export type ActorKind = "human" | "api_token" | "mcp" | "webhook" | "system" | "automation";
export type CredentialKind = "personal_access_token" | "oauth_access_token" | "session";

export interface Actor {
  /** The creator acting; null for the system (scheduled jobs, operator commands). */
  userId: string | null;
  /** The one team the credential acts on (tenancy already checked). */
  teamId: string;
  /** Project allow-list; null = every project of the team. */
  projectIds: readonly string[] | null;
  kind: ActorKind;
  credentialKind: CredentialKind | null;
  requestId: string | null;
}

/** A database handle (a transaction for writes), the actor and the time of the operation. */
export interface DomainContext {
  db: Knex | Knex.Transaction;
  actor: Actor;
  now: Date;
}

/** An operator or job acting on a team without a credential. */
export function systemActor(teamId: string): Actor {
  return { userId: null, teamId, projectIds: null, kind: "system", credentialKind: null, requestId: null };
}

export function inAllowList(actor: Actor, projectId: string): boolean {
  return actor.projectIds === null || actor.projectIds.includes(projectId);
}
