// Resolves `Authorization: Bearer <credential>` to a principal; the same code for REST and MCP.
import type { Knex } from "knex";
import { ApiError } from "../errors.ts";
import { resolveToken } from "../modules/tokens/tokens.ts";
import type { Principal } from "./context.ts";

const OTHER_ENVIRONMENT = /^sbt_(?!live_)[a-z]+_/;

function refuse(message: string, remediation?: string): never {
  throw new ApiError("AUTHENTICATION_REQUIRED", message, remediation ? { remediation } : {});
}

/** The bearer value of an Authorization header, or null. */
export function bearerValue(authorization: string | undefined): string | null {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? "");
  return match ? match[1]! : null;
}

export async function authenticateBearer(db: Knex, authorization: string | undefined, now: Date): Promise<Principal> {
  if (!authorization) refuse("No bearer token was sent.");
  const bearer = bearerValue(authorization);
  if (!bearer) refuse("The Authorization header must have the form: Bearer <token>.");
  if (OTHER_ENVIRONMENT.test(bearer)) {
    refuse(
      "This token was minted for another environment; this server accepts only sbt_live_ tokens.",
      "Use a token minted on this environment (it begins with sbt_live_).",
    );
  }
  const token = await resolveToken(db, bearer, now);
  if (!token) refuse("The token is malformed, unknown, deleted or expired.");
  return {
    credentialKind: "personal_access_token",
    credentialId: token.tokenId,
    userId: token.userId,
    teamId: token.teamId,
    abilities: token.abilities,
    projectIds: token.projectIds,
  };
}
