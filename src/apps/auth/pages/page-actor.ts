// How a page acts on a team's data: as the signed-in creator (actor kind human, credential kind
// session) through the same domain functions the API calls. A write runs in one transaction (the
// change, its activity entry, its events) and, once committed, applies the commit effects exactly
// as the REST pipeline does (src/pipeline/execute.ts): a deleted token is refused on its next call.
import type Koa from "koa";
import type { AuthDeps } from "../deps.ts";
import { commitEffectsOf, createDomainContext, type Actor, type DomainContext } from "../../../db/tenant.ts";
import { applyCredentialEffects } from "../../../pipeline/credential-cache.ts";
import type { RequestState } from "../../../http/request.ts";

export type CreatorActor = Actor & { userId: string };

export function creatorActor(ctx: Koa.Context, userId: string, teamId: string): CreatorActor {
  return { userId, teamId, projectIds: null, kind: "human", credentialKind: "session", requestId: (ctx.state as RequestState).requestId ?? null };
}

/** A read as the creator on a team (no transaction). */
export function readAs(deps: AuthDeps, actor: CreatorActor): DomainContext<CreatorActor> {
  return createDomainContext(deps.db, actor, deps.now());
}

/** A write as the creator on a team: one transaction, then the commit effects. */
export async function writeAs<T>(deps: AuthDeps, actor: CreatorActor, work: (ctx: DomainContext<CreatorActor>) => Promise<T>): Promise<T> {
  let domain: DomainContext<CreatorActor> | null = null;
  const result = await deps.db.transaction((trx) => {
    domain = createDomainContext(trx, actor, deps.now());
    return work(domain);
  });
  await applyCredentialEffects(deps.kv, commitEffectsOf(domain!));
  return result;
}
