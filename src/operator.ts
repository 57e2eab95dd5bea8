// Operator actions shared by the CLI and the first start: open an account, mint a token for a
// creator, seed the demo. They act as the system (actor_kind system) and are logged as such.
import type { Knex } from "knex";
import { createCreator, findCreatorByEmail, AccountError } from "./modules/account/creators.ts";
import type { Tier } from "./modules/teams/tier.ts";
import { grantableAbilities } from "./modules/tokens/abilities.ts";
import { createProject } from "./modules/projects/projects.ts";
import { mintToken } from "./modules/tokens/tokens.ts";
import type { Environment } from "./modules/tokens/environment.ts";
import { createDomainContext, type Actor } from "./db/tenant.ts";
import { ApiError } from "./errors.ts";
import { randomToken } from "./security/crypto.ts";

export { AccountError };

export async function mintTokenForCreator(
  db: Knex,
  input: { email: string; abilities: "all" | string[]; projectIds?: string[]; name?: string; environment?: Environment },
  now: Date,
) {
  const creator = await findCreatorByEmail(db, input.email);
  if (!creator) throw new AccountError(`no creator with the email ${input.email}`);
  if (!creator.current_team_id) throw new AccountError(`${input.email} belongs to no team`);
  const actor: Actor & { userId: string } = {
    userId: creator.id,
    teamId: creator.current_team_id,
    projectIds: null,
    kind: "system",
    credentialKind: null,
    requestId: null,
  };
  const abilities = input.abilities === "all" ? [...grantableAbilities] : input.abilities;
  try {
    const minted = await db.transaction((trx) =>
      mintToken(
        createDomainContext(trx, actor, now),
        { name: input.name ?? "Operator token", abilities, projectIds: input.projectIds?.length ? input.projectIds : null },
        null,
        input.environment ?? "live",
      ),
    );
    return { id: minted.data.id, token: minted.token, abilities: minted.data.abilities, scopes: minted.data.scopes };
  } catch (err) {
    if (err instanceof ApiError) {
      const detail = err.fields ? Object.values(err.fields).flat().join("; ") : err.message;
      throw new AccountError(detail);
    }
    throw err;
  }
}

export async function createCreatorAccount(db: Knex, input: { email: string; password: string; tier: Tier }, now: Date) {
  const creator = await createCreator(db, input, now);
  return { user_id: creator.userId, team_id: creator.teamId };
}

export interface DemoAccount {
  email: string;
  password: string;
  teamId: string;
  projectId: string;
  token: { id: string; token: string; abilities: string[] };
}

export const DEMO_EMAIL = "demo@subbridge.local";

/** A demo creator (Growth), team and project, and a token with every grantable ability. */
export async function seedDemo(db: Knex, now: Date, environment: Environment = "live"): Promise<DemoAccount> {
  const password = randomToken(16);
  const creator = await createCreator(db, { email: DEMO_EMAIL, password, tier: "growth", teamName: "Demo team" }, now);
  const actor: Actor = { userId: creator.userId, teamId: creator.teamId, projectIds: null, kind: "system", credentialKind: null, requestId: null };
  const project = await db.transaction((trx) =>
    createProject(createDomainContext(trx, actor, now), { name: "Demo Community", description: "A project to try the API with." }),
  );
  const token = await mintTokenForCreator(db, { email: DEMO_EMAIL, abilities: "all", name: "Demo token (first start)", environment }, now);
  return { email: DEMO_EMAIL, password, teamId: creator.teamId, projectId: project.id, token };
}
