// The tokens settings page: GET /tokens?team=<id> (the mint form for that team, default the
// session's team, and the list of the creator's tokens on all their teams), POST /tokens (mint;
// the token is in that one response and nowhere else), GET/POST /tokens/<id>/delete (a confirm
// step, then the same deletion and credential-cache effects as DELETE /v1/tokens/{token_id}).
import type { Router } from "@koa/router";
import type Koa from "koa";
import type { AuthDeps } from "../deps.ts";
import { ApiError } from "../../../errors.ts";
import { allVisibleProjects } from "../../../modules/projects/projects.ts";
import { teamGrantsOf } from "../../../modules/roles/grants.ts";
import { whyNotMintable } from "../../../modules/tokens/abilities.ts";
import { deleteToken, getToken, listTokens, mintToken, presentToken } from "../../../modules/tokens/tokens.ts";
import { requireCreator, type SignedIn } from "./creator.ts";
import { readPageForm } from "./forms.ts";
import { PageError } from "./page-error.ts";
import { html } from "./html.ts";
import { notice, renderPage } from "./layout.ts";
import { creatorActor, readAs, writeAs } from "./page-actor.ts";
import { pageRoute } from "./page-route.ts";
import { abilitiesGrantable } from "./token-abilities.ts";
import {
  deleteConfirmation,
  emptyMint,
  mintedSection,
  mintRefused,
  mintSection,
  tokenList,
  type ListedToken,
  type MintChoice,
  type MintValues,
} from "./token-forms.ts";

const ALL_TOKENS = { offset: 0, limit: 1000, sortBy: "created_at", sortDirection: "desc" as const };
const COPY_SCRIPT = "/assets/copy-token.js";

function teamOf(creator: SignedIn, teamId: unknown): { id: string; name: string } {
  const team = creator.teams.find((t) => t.id === teamId);
  if (!team) throw new PageError(404, "You do not own or belong to that team. Choose one of your teams.");
  return team;
}

/** The chosen team, its projects and what the creator may put on a token there. */
async function mintChoice(ctx: Koa.Context, deps: AuthDeps, creator: SignedIn, teamId: unknown): Promise<MintChoice> {
  const team = teamOf(creator, teamId);
  const grants = await teamGrantsOf(deps.db, creator.userId, team.id);
  if (!grants) throw new PageError(404, "You do not own or belong to that team. Choose one of your teams.");
  const projects = await allVisibleProjects(readAs(deps, creatorActor(ctx, creator.userId, team.id)));
  return {
    team,
    teams: creator.teams,
    projects: projects.map((p) => ({ id: p.id, name: p.name })),
    allowed: abilitiesGrantable(grants),
    owner: grants.roleAbilities === null,
  };
}

type Presented = ReturnType<typeof presentToken>;

function listed(token: Presented, team: { id: string; name: string }, projectNames: Map<string, string>): ListedToken {
  const projectIds = token.scopes.filter((s) => s.startsWith("scope:project:")).map((s) => s.slice("scope:project:".length));
  return {
    id: token.id,
    name: token.name,
    kind: token.kind,
    abilities: token.abilities,
    // A token restricted to projects lists them; one since deleted shows as such.
    projects: projectIds.length ? projectIds.map((id) => projectNames.get(id) ?? "a deleted project") : null,
    createdAt: token.created_at,
    lastUsedAt: token.last_used_at,
    team,
  };
}

/** The creator's tokens on every team they own or belong to (each read through the domain, as that team). */
async function tokensOf(ctx: Koa.Context, deps: AuthDeps, creator: SignedIn): Promise<ListedToken[]> {
  const all: ListedToken[] = [];
  for (const team of creator.teams) {
    const domain = readAs(deps, creatorActor(ctx, creator.userId, team.id));
    const { rows } = await listTokens(domain, ALL_TOKENS);
    if (!rows.length) continue;
    const names = new Map((await allVisibleProjects(domain)).map((p) => [p.id, p.name]));
    for (const row of rows) all.push(listed(row, team, names));
  }
  return all.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

async function showTokensPage(
  ctx: Koa.Context,
  deps: AuthDeps,
  creator: SignedIn,
  options: { teamId: unknown; values?: MintValues; minted?: Parameters<typeof mintedSection>[0]; message?: string; status?: number },
): Promise<void> {
  const noTeam = creator.teams.length === 0;
  const choice = noTeam ? null : await mintChoice(ctx, deps, creator, options.teamId);
  renderPage(ctx, {
    title: "Tokens",
    creator,
    status: options.status ?? 200,
    scripts: options.minted ? [COPY_SCRIPT] : [],
    // The list first (what a person comes to check or delete), the long mint form after it.
    body: html`${options.message ? notice("success", options.message) : ""} ${options.minted ? mintedSection(options.minted) : ""}
    ${options.values && Object.keys(options.values.errors).length ? mintRefused(options.values) : ""} ${tokenList(await tokensOf(ctx, deps, creator))}
    ${
      choice
        ? mintSection(ctx, choice, options.values ?? emptyMint)
        : notice("info", "You belong to no team. A token acts on one team, so there is nothing to mint yet.")
    }`,
  });
}

/** The form's problems that need no database, or those the mint refused. */
function mintProblems(values: MintValues, choice: MintChoice): MintValues["errors"] {
  const errors: MintValues["errors"] = {};
  if (!values.name) errors.name = "Give the token a name.";
  else if (values.name.length > 255) errors.name = "Use at most 255 characters.";
  const refused = values.abilities.map(
    (a) => whyNotMintable(a) ?? (choice.allowed.has(a) ? null : `your role on ${choice.team.name} does not grant ${a}`),
  );
  if (!values.abilities.length) errors.abilities = "Tick at least one ability.";
  else if (refused.some(Boolean)) errors.abilities = `These cannot be given: ${refused.filter(Boolean).join("; ")}.`;
  const known = new Set(choice.projects.map((p) => p.id));
  if (values.projectIds.some((id) => !known.has(id))) errors.projects = `Choose projects of ${choice.team.name} only.`;
  return errors;
}

export function mountTokenPages(router: Router, deps: AuthDeps): void {
  router.register(
    "/tokens",
    ["GET"],
    pageRoute(async (ctx) => {
      const creator = await requireCreator(ctx, deps.db);
      if (!creator) return;
      await showTokensPage(ctx, deps, creator, {
        teamId: typeof ctx.query.team === "string" ? ctx.query.team : creator.teamId,
        ...(ctx.query.deleted === "1" ? { message: "The token was deleted. Anything still using it is refused from its next call." } : {}),
      });
    }),
  );

  router.register(
    "/tokens",
    ["POST"],
    pageRoute(async (ctx) => {
      const creator = await requireCreator(ctx, deps.db);
      if (!creator) return;
      const { fields, all } = await readPageForm(ctx);
      const choice = await mintChoice(ctx, deps, creator, fields.team_id);
      const values: MintValues = { name: (fields.name ?? "").trim(), abilities: all("ability"), projectIds: all("project_id"), errors: {} };
      values.errors = mintProblems(values, choice);
      if (Object.keys(values.errors).length) {
        await showTokensPage(ctx, deps, creator, { teamId: choice.team.id, values, status: 400 });
        return;
      }
      let minted;
      try {
        minted = await writeAs(deps, creatorActor(ctx, creator.userId, choice.team.id), (domain) =>
          // Bounded by the creator's place on the team, as a token minting through REST is bounded by what it holds.
          mintToken(
            domain,
            { name: values.name, abilities: values.abilities, projectIds: values.projectIds.length ? values.projectIds : null },
            choice.allowed,
            deps.environment ?? "live",
          ),
        );
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        values.errors.general = `The token was not minted: ${err.message}`;
        await showTokensPage(ctx, deps, creator, { teamId: choice.team.id, values, status: 400 });
        return;
      }
      await showTokensPage(ctx, deps, creator, {
        teamId: choice.team.id,
        status: 201,
        minted: { token: minted.token, name: minted.data.name, team: choice.team.name, abilities: minted.data.abilities.length },
      });
    }),
  );

  /** The token named by the path on the team named by `teamId`, as the list shows it. */
  async function tokenOnTeam(ctx: Koa.Context, creator: SignedIn, teamId: unknown): Promise<ListedToken> {
    const team = teamOf(creator, teamId);
    const domain = readAs(deps, creatorActor(ctx, creator.userId, team.id));
    try {
      const token = await getToken(domain, ctx.params.id!);
      const names = new Map((await allVisibleProjects(domain)).map((p) => [p.id, p.name]));
      return listed(token, team, names);
    } catch (err) {
      if (err instanceof ApiError) throw new PageError(404, "That token does not exist or was already deleted.");
      throw err;
    }
  }

  router.register(
    "/tokens/:id/delete",
    ["GET"],
    pageRoute(async (ctx) => {
      const creator = await requireCreator(ctx, deps.db);
      if (!creator) return;
      const token = await tokenOnTeam(ctx, creator, ctx.query.team);
      renderPage(ctx, { title: "Delete a token", creator, body: deleteConfirmation(ctx, token) });
    }),
  );

  router.register(
    "/tokens/:id/delete",
    ["POST"],
    pageRoute(async (ctx) => {
      const creator = await requireCreator(ctx, deps.db);
      if (!creator) return;
      const { fields } = await readPageForm(ctx);
      const team = teamOf(creator, fields.team_id);
      try {
        await writeAs(deps, creatorActor(ctx, creator.userId, team.id), (domain) => deleteToken(domain, ctx.params.id!));
      } catch (err) {
        if (err instanceof ApiError) throw new PageError(404, "That token does not exist or was already deleted.");
        throw err;
      }
      ctx.status = 303;
      ctx.redirect("/tokens?deleted=1");
    }),
  );
}
