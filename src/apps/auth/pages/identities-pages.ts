// The "Linked accounts" page (/identities): the creator's accounts on connector platforms (their
// identities, primary first), each with Unlink, and per bot of the creator's current team whose
// platform links accounts, "Link your <platform> account": a POST that makes a one-time link into
// that bot (src/modules/account/identity-links.ts) and shows it once. Pressing Start in the bot
// links the account; reloading this page shows it. Every change is a CSRF-checked POST. A platform
// whose driver signs people in (Discord) is linked through that sign-in instead, from a link
// (./identity-sign-in.ts), whether or not the team has installed it.
import type { Router } from "@koa/router";
import type Koa from "koa";
import type { AuthDeps } from "../deps.ts";
import { ApiError } from "../../../errors.ts";
import { identitiesOf, unlinkIdentity, type IdentityRow } from "../../../modules/account/identities.ts";
import { IDENTITY_LINK_TTL_MS, startIdentityLink } from "../../../modules/account/identity-links.ts";
import { LINKABLE_CONNECTORS } from "../../../modules/connectors/bot/identity-link.ts";
import { installationsTable, type InstallationRow } from "../../../modules/connectors/tables.ts";
import { finishIdentitySignIn, signInLinkable, startIdentitySignIn } from "./identity-sign-in.ts";
import { startLink } from "../../portal/catalog.ts";
import { requireCreator, type SignedIn } from "./creator.ts";
import { csrfField } from "./csrf.ts";
import { readPageForm } from "./forms.ts";
import { html, type Html } from "./html.ts";
import { notice, renderPage } from "./layout.ts";
import { creatorActor, readAs, writeAs } from "./page-actor.ts";
import { PageError } from "./page-error.ts";
import { pageRoute } from "./page-route.ts";

const DONE: Record<string, string> = {
  unlinked: "The account was unlinked: its alerts go elsewhere now.",
  linked: "The account is linked to your SubBridge account.",
};

const platformName = (key: string) => (Object.hasOwn(LINKABLE_CONNECTORS, key) ? LINKABLE_CONNECTORS[key]! : key);

/** The team the page acts on: identities are the person's, but linking goes through a bot of this team. */
function teamOf(creator: SignedIn): string {
  if (!creator.teamId) throw new PageError(404, "You belong to no team yet: create or join one to link accounts through its bot.");
  return creator.teamId;
}

/** The team's bots a creator can link through: the oldest active installation per connector linked by a bot's link. */
async function linkableBots(ctx: Koa.Context, deps: AuthDeps, creator: SignedIn): Promise<InstallationRow[]> {
  if (!creator.teamId) return [];
  const bySignIn = signInLinkable(deps);
  const rows = (await installationsTable
    .rows(readAs(deps, creatorActor(ctx, creator.userId, creator.teamId)))
    .where({ status: "active" })
    .whereIn(
      "connector_key",
      Object.keys(LINKABLE_CONNECTORS).filter((key) => !bySignIn.includes(key)),
    )
    .whereNotNull("bot_url")
    .orderBy([{ column: "created_at" }, { column: "id" }])) as InstallationRow[];
  const first = new Map<string, InstallationRow>();
  for (const row of rows) if (!first.has(row.connector_key)) first.set(row.connector_key, row);
  return [...first.values()];
}

/** One identity as a row: three columns, so the table fits a phone's width. */
function identityRow(ctx: Koa.Context, identity: IdentityRow): Html {
  const platform = platformName(identity.connector);
  return html`<tr>
    <th scope="row">
      ${platform}${identity.is_primary ? html` <span class="badge">Primary</span>` : ""}<br /><span class="account"
        >${identity.display_name ?? ""} <span class="hint">(${identity.account_id})</span></span
      >
    </th>
    <td><time datetime="${new Date(identity.linked_at).toISOString()}">${new Date(identity.linked_at).toISOString().slice(0, 10)}</time></td>
    <td>
      <form method="post" action="/identities/${identity.id}/unlink">
        ${csrfField(ctx)}<button type="submit" class="danger">
          Unlink<span class="visually-hidden"> ${platform} account ${identity.display_name ?? identity.account_id}</span>
        </button>
      </form>
    </td>
  </tr>`;
}

async function showIdentitiesPage(ctx: Koa.Context, deps: AuthDeps, creator: SignedIn, made?: { platform: string; link: string; payload: string }) {
  const identities = creator.teamId ? await identitiesOf(readAs(deps, creatorActor(ctx, creator.userId, creator.teamId))) : [];
  const bots = await linkableBots(ctx, deps, creator);
  const signIns = creator.teamId ? signInLinkable(deps) : [];
  const done = typeof ctx.query.done === "string" ? DONE[ctx.query.done] : undefined;
  const minutes = IDENTITY_LINK_TTL_MS / 60_000;
  renderPage(ctx, {
    title: "Linked accounts",
    creator,
    status: made ? 201 : 200,
    body: html`${done ? notice("success", done) : ""}
      ${
        made
          ? html`<section aria-labelledby="made-heading" class="minted">
              <h2 id="made-heading">Open this link in ${made.platform}</h2>
              <p>
                <a href="${made.link}" rel="noopener"><code>${made.link}</code></a>
              </p>
              <p class="hint">
                Press Start in the bot with the ${made.platform} account you want to link. The link works once, within ${minutes} minutes, and only
                for you; then reload this page.
              </p>
              <p class="hint">Or send the bot this message: <code>/start ${made.payload}</code></p>
            </section>`
          : ""
      }
      <section aria-labelledby="linked-heading">
        <h2 id="linked-heading">Your linked accounts</h2>
        ${
          identities.length
            ? html`<table class="identities">
                <thead>
                  <tr>
                    <th scope="col">Account</th>
                    <th scope="col">Linked</th>
                    <th scope="col"><span class="visually-hidden">Action</span></th>
                  </tr>
                </thead>
                <tbody>
                  ${identities.map((i) => identityRow(ctx, i))}
                </tbody>
              </table>`
            : html`<p>No linked accounts yet.</p>`
        }
        <p class="hint">
          Your alerts go to your primary account, and the critical ones (recovery, billing, security) to your email too, until you route them
          otherwise. A linked account can also use the admin links of your team's bots.
        </p>
      </section>
      <section aria-labelledby="link-heading">
        <h2 id="link-heading">Link an account</h2>
        ${bots.map(
          (bot) =>
            html`<form method="post" action="/identities/link">
              ${csrfField(ctx)}<input type="hidden" name="installation_id" value="${bot.id}" />
              <button type="submit">Link your ${platformName(bot.connector_key)} account</button>
            </form>`,
        )}
        ${signIns.map((key) => html`<p><a class="button" href="/identities/${key}/start">Link your ${platformName(key)} account</a></p>`)}
        ${
          bots.length
            ? ""
            : html`<p class="hint">Install the Telegram connector in a project of this team to link your Telegram account through its bot.</p>`
        }
        ${
          signIns.length
            ? html`<p class="hint">
                You sign in on ${signIns.map(platformName).join(" or ")} and allow SubBridge to know who you are (nothing else); your alerts reach
                that account by direct message from the bot of a server this team has connected.
              </p>`
            : ""
        }
      </section>`,
  });
}

export function mountIdentityPages(router: Router, deps: AuthDeps): void {
  router.register(
    "/identities",
    ["GET"],
    pageRoute(async (ctx) => {
      const creator = await requireCreator(ctx, deps.db);
      if (creator) await showIdentitiesPage(ctx, deps, creator);
    }),
  );

  router.register(
    "/identities/link",
    ["POST"],
    pageRoute(async (ctx) => {
      const creator = await requireCreator(ctx, deps.db);
      if (!creator) return;
      const { fields } = await readPageForm(ctx);
      const team = teamOf(creator);
      const bot = (await linkableBots(ctx, deps, creator)).find((b) => b.id === fields.installation_id);
      if (!bot) throw new PageError(404, "That bot is not one of this team's: reload Linked accounts and choose again.");
      const { payload } = await writeAs(deps, creatorActor(ctx, creator.userId, team), (domain) => startIdentityLink(domain, bot));
      ctx.query = {};
      await showIdentitiesPage(ctx, deps, creator, { platform: platformName(bot.connector_key), link: startLink(bot, payload), payload });
    }),
  );

  router.register(
    "/identities/:connector/start",
    ["GET"],
    pageRoute((ctx) => startIdentitySignIn(ctx, deps)),
  );

  router.register(
    "/identities/:connector/callback",
    ["GET"],
    pageRoute((ctx) => finishIdentitySignIn(ctx, deps)),
  );

  router.register(
    "/identities/:id/unlink",
    ["POST"],
    pageRoute(async (ctx) => {
      const creator = await requireCreator(ctx, deps.db);
      if (!creator) return;
      await readPageForm(ctx);
      try {
        await writeAs(deps, creatorActor(ctx, creator.userId, teamOf(creator)), (domain) => unlinkIdentity(domain, ctx.params.id!));
      } catch (err) {
        if (err instanceof ApiError) throw new PageError(404, "That account is not linked to you (it may be unlinked already).");
        throw err;
      }
      ctx.status = 303;
      ctx.redirect("/identities?done=unlinked");
    }),
  );
}
