// The payments page (/payments): the projects of the creator's current team with their payment
// methods, and the connection flow that creates them (issue 33: create is "Coming" over the API).
// "Connect Stripe" makes (or reuses) the project's pending connection and its connected account and
// sends the creator to Stripe's onboarding; Stripe sends them back to /payments/connections/<id>/
// return (or /refresh for a fresh link), where the method is created once Stripe says the account
// can take charges. "Enable Telegram Stars" needs the project's installed bot. Methods are turned
// off and on and removed with the same domain functions as the REST update and delete. What a
// creator sees and may do follows their place on the team: project-payment-method:view-any to see
// a project's methods, :create to connect, :update to turn one off or on, :delete to remove.
import type { Router } from "@koa/router";
import type Koa from "koa";
import Stripe from "stripe";
import type { AuthDeps } from "../deps.ts";
import { ApiError } from "../../../errors.ts";
import { allVisibleProjects } from "../../../modules/projects/projects.ts";
import { grantsAbility, teamGrantsOf, type TeamGrants } from "../../../modules/roles/grants.ts";
import { deletePaymentMethod, listPaymentMethods, updatePaymentMethod } from "../../../modules/payment-methods/payment-methods.ts";
import {
  connectedAccountOf,
  connectionById,
  connectionOf,
  connectionOnboardingLink,
  defaultStripeCurrencies,
  enableTelegramStars,
  endedStripeMethods,
  finishStripeConnection,
  hasTelegramBot,
  pendingStripeConnection,
  stripeCurrencies,
  turnOnRefusal,
  teamOfConnection,
  type ConnectionUrls,
} from "../../../modules/payments/connections.ts";
import type { ConnectionRow } from "../../../modules/payments/tables.ts";
import { surfaceRegistry } from "../../../modules/payments/providers.ts";
import type { StripePayments } from "../../../modules/payments/stripe/stripe-payments.ts";
import { onboardingOrigin } from "../../../modules/payments/stripe/connect.ts";
import { requireCreator, type SignedIn } from "./creator.ts";
import { readPageForm } from "./forms.ts";
import { html } from "./html.ts";
import { notice, renderPage } from "./layout.ts";
import { creatorActor, readAs, writeAs } from "./page-actor.ts";
import { PageError } from "./page-error.ts";
import { pageRoute } from "./page-route.ts";
import { projectSection, type ProjectView } from "./payments-forms.ts";

type Action = "view-any" | "create" | "update" | "delete";
const ability = (action: Action) => `project-payment-method:${action}`;

/** Messages after a change, by a fixed key (nothing from the address is echoed). */
const DONE: Record<string, { kind: "success" | "info"; text: string }> = {
  "stripe-connected": { kind: "success", text: "Stripe is connected: the project takes card payments through your Stripe account." },
  "stripe-pending": {
    kind: "info",
    text: "Stripe has not finished setting up your account yet. The method turns on by itself when Stripe tells us; you can also continue onboarding below.",
  },
  "stripe-already": { kind: "info", text: "This project is already connected to Stripe." },
  "stars-enabled": { kind: "success", text: "Telegram Stars is on: the bot sells plans priced in XTR." },
  "stars-already": { kind: "info", text: "This project already has a Telegram Stars method." },
  enabled: { kind: "success", text: "The payment method is on." },
  disabled: { kind: "success", text: "The payment method is off: new checkouts no longer offer it." },
  removed: { kind: "success", text: "The payment method was removed." },
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const METHOD_GONE = "That payment method does not exist or was already removed.";
export const NOT_YOURS = "That project is not one of your current team's. Switch to its team, or choose one of its projects.";

export interface Place {
  team: { id: string; name: string };
  grants: TeamGrants;
}

/** The creator's place on a team they own or belong to (404 otherwise). */
export async function placeOn(deps: AuthDeps, creator: SignedIn, teamId: string | null): Promise<Place> {
  const team = creator.teams.find((t) => t.id === teamId);
  const grants = team ? await teamGrantsOf(deps.db, creator.userId, team.id) : null;
  if (!team || !grants) throw new PageError(404, "You do not own or belong to that team. Choose one of your teams.");
  return { team, grants };
}

/** Refuses (403) unless the creator's place grants the ability on the project. */
function requireAbility(place: Place, action: Action, projectId: string): void {
  if (!grantsAbility(place.grants, ability(action), projectId))
    throw new PageError(403, `Your role on ${place.team.name} does not let you do this: it needs ${ability(action)}.`);
}

/** A domain refusal shown as a page: a missing project or method is 404, a refused change 422 with its reasons. */
export function asPageError(err: unknown, notFound = NOT_YOURS): never {
  if (!(err instanceof ApiError)) throw err;
  if (err.status === 404) throw new PageError(404, notFound);
  const reasons = err.fields ? Object.values(err.fields).flat().join("; ") : "";
  throw new PageError(err.status === 422 ? 422 : 400, `That was not done: ${reasons || err.message}.`);
}

const connectionUrls = (deps: AuthDeps): ConnectionUrls => ({
  returnUrl: (id) => `${deps.authUrl}/payments/connections/${id}/return`,
  refreshUrl: (id) => `${deps.authUrl}/payments/connections/${id}/refresh`,
});

const ALL_METHODS = { offset: 0, limit: 100, sortBy: "created_at", sortDirection: "asc" as const };

async function paymentsPage(ctx: Koa.Context, deps: AuthDeps, creator: SignedIn): Promise<void> {
  if (!creator.teamId) {
    renderPage(ctx, { title: "Payments", creator, body: notice("info", "You belong to no team, so there are no projects to take payments for.") });
    return;
  }
  const place = await placeOn(deps, creator, creator.teamId);
  const domain = readAs(deps, creatorActor(ctx, creator.userId, place.team.id));
  const projects = await allVisibleProjects(domain);
  const visible = projects.filter((p) => grantsAbility(place.grants, ability("view-any"), p.id));
  if (projects.length && !visible.length)
    throw new PageError(403, `Your role on ${place.team.name} does not let you see payment methods: it needs ${ability("view-any")}.`);
  const views: ProjectView[] = [];
  for (const p of visible) {
    const pending = await connectionOf(domain, p.id, "stripe");
    views.push({
      id: p.id,
      name: p.name,
      methods: (await listPaymentMethods(domain, p.id, ALL_METHODS)).rows,
      pendingStripe: pending?.status === "pending" ? pending : null,
      endedStripe: await endedStripeMethods(domain, p.id),
      stripeCurrencies: pending?.status === "pending" ? pending.currencies : await defaultStripeCurrencies(domain, p.id),
      hasBot: await hasTelegramBot(domain, p.id),
      may: {
        create: grantsAbility(place.grants, ability("create"), p.id),
        update: grantsAbility(place.grants, ability("update"), p.id),
        delete: grantsAbility(place.grants, ability("delete"), p.id),
        viewPayments: grantsAbility(place.grants, "payment:view-any", p.id),
      },
    });
  }
  const done = typeof ctx.query.done === "string" ? DONE[ctx.query.done] : undefined;
  renderPage(ctx, {
    title: "Payments",
    creator,
    // The connect form's answer redirects to Stripe's onboarding page (Chromium checks that redirect too).
    formTargets: deps.stripe ? [onboardingOrigin(deps.stripe.client)] : [],
    body: html`${done ? notice(done.kind, done.text) : ""}
      <p>How members of ${place.team.name}'s projects pay. A plan is sold by the enabled methods that take its currency and cycle.</p>
      ${views.length ? views.map((v) => projectSection(ctx, deps, v)) : html`<p>This team has no projects yet.</p>`}`,
  });
}

/** The project (of the current team) a form acts on, with the creator's place; 404 when it is not the team's. */
async function projectPlace(ctx: Koa.Context, deps: AuthDeps, creator: SignedIn, action: Action): Promise<Place & { projectId: string }> {
  const place = await placeOn(deps, creator, creator.teamId);
  const projectId = ctx.params.project ?? "";
  const visible = await allVisibleProjects(readAs(deps, creatorActor(ctx, creator.userId, place.team.id)));
  if (!visible.some((p) => p.id === projectId)) throw new PageError(404, NOT_YOURS);
  requireAbility(place, action, projectId);
  return { ...place, projectId };
}

/**
 * Turning a Stripe method on asks Stripe first whether it still accepts the method's account and
 * the account takes charges (409 in words otherwise: an account Stripe refuses is not re-enabled,
 * and the project is offered Connect Stripe again). Other methods need no provider's word.
 */
async function checkTurnOn(ctx: Koa.Context, deps: AuthDeps, creator: SignedIn, place: Place & { projectId: string }, methodId: string) {
  const domain = readAs(deps, creatorActor(ctx, creator.userId, place.team.id));
  const registry = surfaceRegistry({ db: deps.db, stripe: deps.stripe ?? null, platforms: deps.platforms, appKey: deps.appKey });
  const refusal = await askingStripe(() => turnOnRefusal(domain, registry, place.projectId, methodId));
  if (refusal) throw new PageError(409, refusal);
}

/**
 * Runs a step that calls Stripe; Stripe unreachable or refusing becomes a page (503) saying nothing
 * was lost: the connection and its account are kept, so trying again continues where it stopped.
 */
async function askingStripe<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (!(err instanceof Stripe.errors.StripeError)) throw err;
    throw new PageError(503, "Stripe did not answer as expected, so nothing is set up yet. Wait a moment and try again.", { "Retry-After": "30" });
  }
}

function stripeOf(deps: AuthDeps): StripePayments {
  if (!deps.stripe) throw new PageError(404, "This deployment takes no payments by Stripe, so there is nothing to connect.");
  return deps.stripe;
}

/**
 * The connection named by Stripe's return or refresh address, on whichever of the creator's teams
 * it belongs to (the creator may have switched teams meanwhile), once their place there may create
 * methods on its project; 404 for a connection that is not on one of their teams.
 */
async function connectionFor(ctx: Koa.Context, deps: AuthDeps, creator: SignedIn): Promise<{ connection: ConnectionRow; teamId: string }> {
  const id = ctx.params.id ?? "";
  const teamId = await teamOfConnection(deps.db, id);
  if (!teamId || !creator.teams.some((t) => t.id === teamId)) throw new PageError(404, "That Stripe connection is not one of your teams'.");
  const place = await placeOn(deps, creator, teamId);
  const connection = await connectionById(readAs(deps, creatorActor(ctx, creator.userId, teamId)), id);
  if (!connection) throw new PageError(404, "That Stripe connection is not one of your teams'.");
  requireAbility(place, "create", connection.project_id);
  return { connection, teamId };
}

/**
 * Sends the creator to Stripe's onboarding for the connection. The address comes from Stripe's API
 * (an account link), never from the request, so this is no open redirect.
 */
async function toOnboarding(ctx: Koa.Context, deps: AuthDeps, creator: SignedIn, connection: ConnectionRow, teamId: string): Promise<void> {
  const stripe = stripeOf(deps);
  const actor = creatorActor(ctx, creator.userId, teamId);
  const url = await askingStripe(async () => {
    const account = await connectedAccountOf(connection, stripe.client, creator.email, (work) => writeAs(deps, actor, work));
    return connectionOnboardingLink(stripe.client, connection, account, connectionUrls(deps));
  });
  ctx.status = 303;
  ctx.redirect(url);
}

function backToPayments(ctx: Koa.Context, done: keyof typeof DONE): void {
  ctx.status = 303;
  ctx.redirect(`/payments?done=${done}`);
}

export function mountPaymentPages(router: Router, deps: AuthDeps): void {
  router.register(
    "/payments",
    ["GET"],
    pageRoute(async (ctx) => {
      const creator = await requireCreator(ctx, deps.db);
      if (creator) await paymentsPage(ctx, deps, creator);
    }),
  );

  router.register(
    "/payments/projects/:project/stripe",
    ["POST"],
    pageRoute(async (ctx) => {
      const { fields } = await readPageForm(ctx);
      const creator = await requireCreator(ctx, deps.db);
      if (!creator) return;
      const place = await projectPlace(ctx, deps, creator, "create");
      stripeOf(deps);
      const actor = creatorActor(ctx, creator.userId, place.team.id);
      let start;
      try {
        const currencies = stripeCurrencies(fields.currencies ?? "");
        start = await writeAs(deps, actor, (domain) => pendingStripeConnection(domain, place.projectId, currencies));
      } catch (err) {
        asPageError(err);
      }
      if (start.kind === "already_connected") return backToPayments(ctx, "stripe-already");
      await toOnboarding(ctx, deps, creator, start.connection, place.team.id);
    }),
  );

  // Stripe sends an expired or already used onboarding link here: a fresh one.
  router.register(
    "/payments/connections/:id/refresh",
    ["GET"],
    pageRoute(async (ctx) => {
      const creator = await requireCreator(ctx, deps.db);
      if (!creator) return;
      const { connection, teamId } = await connectionFor(ctx, deps, creator);
      if (connection.status === "completed") return backToPayments(ctx, "stripe-already");
      await toOnboarding(ctx, deps, creator, connection, teamId);
    }),
  );

  // Stripe's return after onboarding (finished or not: Stripe says which when asked).
  router.register(
    "/payments/connections/:id/return",
    ["GET"],
    pageRoute(async (ctx) => {
      const creator = await requireCreator(ctx, deps.db);
      if (!creator) return;
      const { connection, teamId } = await connectionFor(ctx, deps, creator);
      const stripe = stripeOf(deps);
      const actor = creatorActor(ctx, creator.userId, teamId);
      const outcome = await askingStripe(() =>
        finishStripeConnection(connection, stripe.client, deps.appKey, (work) => writeAs(deps, actor, work), deps.environment ?? "live"),
      );
      // Connected either way when not pending: by this return, or by Stripe's account.updated that came first.
      backToPayments(ctx, outcome === "pending" ? "stripe-pending" : "stripe-connected");
    }),
  );

  router.register(
    "/payments/projects/:project/stars",
    ["POST"],
    pageRoute(async (ctx) => {
      await readPageForm(ctx);
      const creator = await requireCreator(ctx, deps.db);
      if (!creator) return;
      const place = await projectPlace(ctx, deps, creator, "create");
      let method;
      try {
        method = await writeAs(deps, creatorActor(ctx, creator.userId, place.team.id), (domain) =>
          enableTelegramStars(domain, place.projectId, deps.environment ?? "live"),
        );
      } catch (err) {
        asPageError(err);
      }
      backToPayments(ctx, method ? "stars-enabled" : "stars-already");
    }),
  );

  const CHANGES = { enable: "update", disable: "update", remove: "delete" } as const;
  router.register(
    "/payments/projects/:project/methods/:method/:change",
    ["POST"],
    pageRoute(async (ctx) => {
      await readPageForm(ctx);
      const creator = await requireCreator(ctx, deps.db);
      if (!creator) return;
      const change = ctx.params.change as keyof typeof CHANGES;
      if (!Object.hasOwn(CHANGES, change)) throw new PageError(404, "There is no such change of a payment method.");
      const place = await projectPlace(ctx, deps, creator, CHANGES[change]);
      const methodId = ctx.params.method ?? "";
      if (!UUID.test(methodId)) throw new PageError(404, METHOD_GONE);
      if (change === "enable") await checkTurnOn(ctx, deps, creator, place, methodId);
      try {
        await writeAs(deps, creatorActor(ctx, creator.userId, place.team.id), async (domain) => {
          if (change === "remove") return deletePaymentMethod(domain, place.projectId, methodId);
          return updatePaymentMethod(domain, place.projectId, methodId, { enabled: change === "enable" });
        });
      } catch (err) {
        asPageError(err, METHOD_GONE);
      }
      backToPayments(ctx, change === "remove" ? "removed" : change === "enable" ? "enabled" : "disabled");
    }),
  );
}
