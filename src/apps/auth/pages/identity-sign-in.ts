// Linking a creator's account on a platform with no start links (Discord) through the platform's
// own sign-in: "Link your Discord account" on Linked accounts is a link to
// GET /identities/<connector>/start, which keeps a state in the creator's session (one use, ten
// minutes, like an identity link token) and sends the browser to the consent screen asking only
// who they are; the platform answers GET /identities/<connector>/callback, where the state is
// taken, the code exchanged for the account, and the account linked exactly as a bot links one
// (linkIdentity: the activity entry, one creator per account). Both are GETs: a link, not a form,
// leaves the page, so the host's CSP form-action stays as it is.
import type Koa from "koa";
import type { AuthDeps } from "../deps.ts";
import { ApiError } from "../../../errors.ts";
import { linkIdentity } from "../../../modules/account/identities.ts";
import { IDENTITY_LINK_TTL_MS } from "../../../modules/account/identity-links.ts";
import { LINKABLE_CONNECTORS, LINK_REFUSALS } from "../../../modules/connectors/bot/identity-link.ts";
import { driverFor } from "../../../modules/connectors/drivers/index.ts";
import { PlatformError, type PlatformSignIn } from "../../../modules/connectors/drivers/driver.ts";
import { randomToken, safeEqual } from "../../../security/crypto.ts";
import { requireCreator, type SignedIn } from "./creator.ts";
import { creatorActor, writeAs } from "./page-actor.ts";
import { PageError } from "./page-error.ts";
import { sessionOf } from "./session.ts";

/** What the session keeps between the start and the callback. */
interface PendingLink {
  connector: string;
  state: string;
  uid: string;
  at: number;
}

/** The linkable connectors whose accounts are linked through the platform's sign-in (no bot link), in LINKABLE_CONNECTORS's order. */
export function signInLinkable(deps: Pick<AuthDeps, "platforms">): string[] {
  return Object.keys(LINKABLE_CONNECTORS).filter((key) => driverFor(key, deps.platforms)?.signIn);
}

/** Where the platform answers: one callback per connector on this host. */
export const identityCallbackUrl = (authUrl: string, connector: string) => `${authUrl.replace(/\/+$/, "")}/identities/${connector}/callback`;

function signInOf(deps: Pick<AuthDeps, "platforms">, connector: string): PlatformSignIn {
  const signIn = signInLinkable(deps).includes(connector) ? driverFor(connector, deps.platforms)?.signIn : undefined;
  if (!signIn) throw new PageError(404, "Accounts on that platform are not linked this way.");
  return signIn;
}

function teamOf(creator: SignedIn): string {
  if (!creator.teamId) throw new PageError(404, "You belong to no team yet: create or join one to link accounts.");
  return creator.teamId;
}

/** GET /identities/:connector/start: off to the platform's consent screen, with a state only this session holds. */
export async function startIdentitySignIn(ctx: Koa.Context, deps: AuthDeps): Promise<void> {
  const creator = await requireCreator(ctx, deps.db);
  if (!creator) return;
  teamOf(creator);
  const connector = String(ctx.params.connector ?? "");
  const signIn = signInOf(deps, connector);
  const state = randomToken(43);
  let url: string;
  try {
    url = signIn.authorizeUrl({ state, redirectUri: identityCallbackUrl(deps.authUrl, connector), purpose: "identity" });
  } catch (err) {
    if (err instanceof PlatformError && err.kind === "not_configured")
      throw new PageError(404, `This deployment is not connected to ${LINKABLE_CONNECTORS[connector]}: its accounts cannot be linked yet.`);
    throw err;
  }
  const pending: PendingLink = { connector, state, uid: creator.userId, at: deps.now().getTime() };
  sessionOf(ctx).identityLink = pending;
  ctx.set("Cache-Control", "no-store");
  ctx.redirect(url);
}

/** The session's pending link for `connector` and `state`, forgotten whatever the answer (one use). */
function takePendingLink(ctx: Koa.Context, creator: SignedIn, connector: string, now: Date): void {
  const session = sessionOf(ctx);
  const pending = session.identityLink as PendingLink | undefined;
  delete session.identityLink;
  const state = typeof ctx.query.state === "string" ? ctx.query.state : "";
  if (!pending || pending.connector !== connector || pending.uid !== creator.userId || !safeEqual(pending.state, state))
    throw new PageError(400, "This link was not started here, or was already used. Open Linked accounts and press the link again.");
  if (now.getTime() - pending.at > IDENTITY_LINK_TTL_MS)
    throw new PageError(410, `This link has expired (it lasts ${IDENTITY_LINK_TTL_MS / 60_000} minutes). Open Linked accounts and press it again.`);
}

/** GET /identities/:connector/callback?code&state (or ?error): the account the person signed in with is linked. */
export async function finishIdentitySignIn(ctx: Koa.Context, deps: AuthDeps): Promise<void> {
  const creator = await requireCreator(ctx, deps.db);
  if (!creator) return;
  const connector = String(ctx.params.connector ?? "");
  const signIn = signInOf(deps, connector);
  const team = teamOf(creator);
  takePendingLink(ctx, creator, connector, deps.now());
  const platform = LINKABLE_CONNECTORS[connector]!;
  if (typeof ctx.query.error === "string" || typeof ctx.query.code !== "string")
    throw new PageError(400, `The link was not authorized on ${platform}, so nothing changed.`);
  let account: { id: string; name: string | null };
  try {
    ({ account } = await signIn.complete({ code: ctx.query.code, redirectUri: identityCallbackUrl(deps.authUrl, connector) }));
  } catch (err) {
    if (!(err instanceof PlatformError)) throw err;
    throw new PageError(502, `${platform} did not confirm who you are. Open Linked accounts and press the link again.`);
  }
  try {
    await writeAs(deps, creatorActor(ctx, creator.userId, team), (domain) =>
      linkIdentity(domain, { connector, accountId: account.id, displayName: account.name }),
    );
  } catch (err) {
    if (err instanceof ApiError && err.context?.reason === "linked_elsewhere") throw new PageError(409, LINK_REFUSALS.linked_elsewhere);
    throw err;
  }
  ctx.status = 303;
  ctx.set("Cache-Control", "no-store");
  ctx.redirect("/identities?done=linked");
}
