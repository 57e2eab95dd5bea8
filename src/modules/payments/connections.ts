// How a project gets its payment methods (issue 33: create is "Coming" over the API; methods come
// from a connection flow). Stripe: the creator's connected account is created and remembered as a
// pending connection of the project, the creator goes through Stripe's onboarding, and once the
// account can take charges (on the creator's return, or Stripe's account.updated when onboarding
// finishes later) the project's Stripe method is created with the account sealed in it. Telegram
// Stars: the project's installed bot is all it needs, so the method is created at once.
// Stripe is called outside any transaction; each database step is its own short one.
import { randomUUID } from "node:crypto";
import Stripe from "stripe";
import { createDomainContext, systemActor, unscoped, type Actor, type Db, type DomainContext } from "../../db/tenant.ts";
import { addFieldError, ApiError, domainRefusal, emptyFieldErrors, validationFailed } from "../../errors.ts";
import { installationsTable } from "../connectors/tables.ts";
import { alertStripeDisconnected } from "../alerts/producers.ts";
import { createPaymentMethod, currencyErrors, STARS_CURRENCY, updatePaymentMethod, type PaymentMethod } from "../payment-methods/payment-methods.ts";
import { paymentMethodsTable, type PaymentMethodRow } from "../payment-methods/tables.ts";
import { plansTable } from "../plans/tables.ts";
import { requireProject } from "../resources/catalog-change.ts";
import { sealStripeCredentials, type ProviderRegistry } from "./providers.ts";
import { connectionsTable, type ConnectionRow } from "./tables.ts";
import { accountReady, createConnectedAccount, onboardingLink } from "./stripe/connect.ts";
import type { Environment } from "../tokens/environment.ts";

/** A Stripe method sells every cycle Stripe can bill (stripeRefusal still refuses a plan it cannot). */
const STRIPE_CYCLES = ["day", "week", "month", "year", "lifetime"];
/** Stars renew only every 30 days (Telegram's one subscription_period) or sell once. */
const STARS_CYCLES = ["month", "lifetime"];

/** Where Stripe sends the creator back: the connection is in the path, since Stripe's return carries no state. */
export interface ConnectionUrls {
  returnUrl(connectionId: string): string;
  refreshUrl(connectionId: string): string;
}

/** The project's methods of one provider (any, enabled or not). */
async function methodsOf(ctx: DomainContext, projectId: string, provider: string): Promise<string[]> {
  return (await paymentMethodsTable.rows(ctx).where({ project_id: projectId, provider }).pluck("id")) as string[];
}

/** What the connect form offers first: the currencies of the project's plans (Stars excepted), else USD. */
export async function defaultStripeCurrencies(ctx: DomainContext, projectId: string): Promise<string[]> {
  const used = (await plansTable.rows(ctx).where({ project_id: projectId }).whereNot({ currency: STARS_CURRENCY }).distinct("currency")) as {
    currency: string;
  }[];
  const codes = used.map((r) => r.currency.toUpperCase()).sort();
  return codes.length ? codes : ["USD"];
}

/** The connect form's currencies: ISO 4217 codes, at least one, never XTR (422 naming `currencies`). */
export function stripeCurrencies(text: string): string[] {
  const codes = [
    ...new Set(
      text
        .toUpperCase()
        .split(/[\s,]+/)
        .filter(Boolean),
    ),
  ];
  const fields = currencyErrors(emptyFieldErrors(), "currencies", codes);
  if (codes.includes(STARS_CURRENCY)) addFieldError(fields, "currencies", "XTR (Telegram Stars) is taken only by the Telegram Stars method");
  if (!codes.length) addFieldError(fields, "currencies", "name at least one currency, for example USD");
  if (Object.keys(fields).length) throw validationFailed(fields);
  return codes;
}

export async function connectionOf(ctx: DomainContext, projectId: string, provider: string): Promise<ConnectionRow | null> {
  return ((await connectionsTable.rows(ctx).where({ project_id: projectId, provider }).first()) as ConnectionRow | undefined) ?? null;
}

export async function connectionById(ctx: DomainContext, id: string): Promise<ConnectionRow | null> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  return ((await connectionsTable.rows(ctx).where({ id }).first()) as ConnectionRow | undefined) ?? null;
}

/** The team a connection belongs to, before any actor exists: the return from Stripe names only the connection. */
export async function teamOfConnection(db: Db, id: string): Promise<string | null> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  const handle = unscoped(db, "Stripe's return names only the connection; the creator's place on its team is checked next");
  const row = (await handle("payment_connections").where({ id }).first("team_id")) as { team_id: string } | undefined;
  return row?.team_id ?? null;
}

export type StripeStart = { kind: "already_connected" } | { kind: "onboarding"; connection: ConnectionRow };

/**
 * Step one of connecting Stripe (in a transaction): the project's pending connection with the
 * chosen currencies, made or reused. A project with an enabled Stripe method, or a completed
 * connection whose method still exists, is already connected; a completed connection whose method
 * was since deleted is pending again, on the same account. A project Stripe disconnected (its
 * connection ended, its method off) connects afresh.
 */
export async function pendingStripeConnection(ctx: DomainContext, projectId: string, currencies: string[]): Promise<StripeStart> {
  await requireProject(ctx, projectId);
  const enabled = await paymentMethodsTable.rows(ctx).where({ project_id: projectId, provider: "stripe", enabled: true }).first("id");
  const live = await connectionsTable
    .rows(ctx)
    .where({ project_id: projectId, provider: "stripe", status: "completed" })
    .whereNotNull("payment_method_id")
    .first("id");
  if (enabled || live) return { kind: "already_connected" };
  const fresh = { id: randomUUID(), project_id: projectId, provider: "stripe", created_by: ctx.actor.userId, created_at: ctx.now };
  // One connection per project and provider: a concurrent connect finds the row the first one made.
  await connectionsTable
    .insert(ctx, { ...fresh, currencies: JSON.stringify(currencies) })
    .onConflict(["project_id", "provider"])
    .ignore();
  await connectionsTable
    .rows(ctx)
    .where({ project_id: projectId, provider: "stripe" })
    .update({ currencies: JSON.stringify(currencies), status: "pending", payment_method_id: null, completed_at: null });
  return { kind: "onboarding", connection: (await connectionOf(ctx, projectId, "stripe"))! };
}

/**
 * The connection's account, created on first use with the connection's id as the idempotency key
 * (two starts racing get one account), then recorded (in its own transaction, `write`).
 */
export async function connectedAccountOf(
  connection: ConnectionRow,
  stripe: Stripe,
  email: string,
  write: <T>(work: (ctx: DomainContext) => Promise<T>) => Promise<T>,
): Promise<string> {
  if (connection.account) return connection.account;
  const account = await createConnectedAccount(stripe, { email, idempotencyKey: `subbridge_connect_${connection.id}` });
  await write((ctx) => connectionsTable.rows(ctx).where({ id: connection.id }).whereNull("account").update({ account }));
  return account;
}

/** A fresh single-use onboarding link for the connection (an expired or used one comes back to refreshUrl). */
export function connectionOnboardingLink(stripe: Stripe, connection: ConnectionRow, account: string, urls: ConnectionUrls): Promise<string> {
  return onboardingLink(stripe, account, { refreshUrl: urls.refreshUrl(connection.id), returnUrl: urls.returnUrl(connection.id) });
}

/**
 * Completes a pending connection whose account Stripe says can take charges (in a transaction):
 * the project's Stripe method, enabled, with the account sealed in it and payment_method.created
 * with its activity entry. Null when the connection was not pending (completed by the other path).
 */
export async function completeStripeConnection(
  ctx: DomainContext,
  appKey: Buffer,
  connection: ConnectionRow,
  mode: Environment,
): Promise<PaymentMethod | null> {
  // Only the first of the return and account.updated moves it on: the other finds nothing pending.
  const moved = await connectionsTable
    .rows(ctx)
    .where({ id: connection.id, status: "pending" })
    .update({ status: "completed", completed_at: ctx.now });
  if (!moved || !connection.account) return null;
  const method = await createPaymentMethod(ctx, connection.project_id, {
    provider: "stripe",
    name: "Stripe",
    // A method made on a sandbox is a test method (SUBBRIDGE_ENVIRONMENT): it takes no real money.
    mode,
    currencies: [...connection.currencies],
    billing_cycles: STRIPE_CYCLES,
    sealedCredentials: sealStripeCredentials(appKey, connection.project_id, { account: connection.account }),
  });
  await connectionsTable.rows(ctx).where({ id: connection.id }).update({ payment_method_id: method.id });
  return method;
}

export type ConnectionOutcome = "enabled" | "pending" | "already_connected";

/** What the creator's return from onboarding finds: Stripe is asked whether the account can take charges. */
export async function finishStripeConnection(
  connection: ConnectionRow,
  stripe: Stripe,
  appKey: Buffer,
  write: <T>(work: (ctx: DomainContext) => Promise<T>) => Promise<T>,
  mode: Environment,
): Promise<ConnectionOutcome> {
  if (connection.status === "completed") return "already_connected";
  if (!connection.account || !(await accountReady(stripe, connection.account))) return "pending";
  const method = await write((ctx) => completeStripeConnection(ctx, appKey, connection, mode));
  return method ? "enabled" : "already_connected";
}

/**
 * Stripe's account.updated for a connected account: a pending connection on it completes once
 * Stripe, asked again (the event may be stale or out of order), says it can take charges. Acts as
 * the provider's webhook on the connection's team. Returns the methods created.
 */
export async function completeConnectionsOfAccount(
  db: Db,
  stripe: Stripe,
  appKey: Buffer,
  account: string,
  now: Date,
  mode: Environment,
): Promise<PaymentMethod[]> {
  const handle = unscoped(db, "Stripe's account.updated names only the connected account, not a team");
  const pending = (await handle("payment_connections").where({ provider: "stripe", account, status: "pending" }).select("*")) as ConnectionRow[];
  if (!pending.length || !(await accountReady(stripe, account))) return [];
  const created: PaymentMethod[] = [];
  for (const connection of pending) {
    const actor: Actor = { ...systemActor(connection.team_id), kind: "webhook" };
    const method = await db.transaction((trx) => completeStripeConnection(createDomainContext(trx, actor, now), appKey, connection, mode));
    if (method) created.push(method);
  }
  return created;
}

/**
 * The connected account of an already verified Stripe webhook of `type` (Connect events carry it in
 * `account`), or null for any other event: account.updated completes a pending connection,
 * account.application.deauthorized (the creator disconnected SubBridge in Stripe) ends one.
 */
export function connectedAccountEvent(verifiedBody: Buffer | string, type: "account.updated" | "account.application.deauthorized"): string | null {
  const event = JSON.parse(verifiedBody.toString()) as { type?: unknown; account?: unknown };
  return event.type === type && typeof event.account === "string" ? event.account : null;
}

/**
 * SubBridge may no longer act on a Stripe account of the project: its connections on the account
 * end (a new connect starts afresh: the account cannot be reused) and the method is turned off
 * (members are offered no payment Stripe would refuse), and the creators are alerted, once, when
 * the method was on. Answers whether it was.
 */
async function endStripeAccess(ctx: DomainContext, lost: { projectId: string; account: string; methodId: string | null }): Promise<boolean> {
  await connectionsTable.rows(ctx).where({ project_id: lost.projectId, provider: "stripe", account: lost.account }).delete();
  const on = lost.methodId ? await paymentMethodsTable.rows(ctx).where({ id: lost.methodId, enabled: true }).first("id") : undefined;
  if (!on) return false;
  await updatePaymentMethod(ctx, lost.projectId, lost.methodId!, { enabled: false });
  await alertStripeDisconnected(ctx, { projectId: lost.projectId, account: lost.account, methodId: lost.methodId! });
  return true;
}

/**
 * Stripe's account.application.deauthorized: the creator disconnected SubBridge from the account
 * in Stripe. Each connection on it ends (endStripeAccess); a repeated delivery finds none.
 * Answers how many connections there were.
 */
export async function disconnectStripeAccount(db: Db, account: string, now: Date): Promise<number> {
  const handle = unscoped(db, "Stripe's account.application.deauthorized names only the connected account, not a team");
  const connections = (await handle("payment_connections").where({ provider: "stripe", account }).select("*")) as ConnectionRow[];
  for (const connection of connections) {
    const actor: Actor = { ...systemActor(connection.team_id), kind: "webhook" };
    await db.transaction((trx) =>
      endStripeAccess(createDomainContext(trx, actor, now), { projectId: connection.project_id, account, methodId: connection.payment_method_id }),
    );
  }
  return connections.length;
}

/**
 * Stripe refused a call for the method's account as one it no longer lets SubBridge reach
 * (`account_invalid`: disconnected, and its event lost or not yet come): the same as the event.
 */
export async function stripeAccessRefused(db: Db, lost: { teamId: string; projectId: string; methodId: string; account: string }, now: Date) {
  return db.transaction((trx) => endStripeAccess(createDomainContext(trx, systemActor(lost.teamId), now), lost));
}

/** Whether a Stripe error says the platform may no longer act on the connected account. */
export const accountAccessLost = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === "account_invalid";

/**
 * The project's Stripe methods that no connection stands behind any more: their account's access
 * ended (endStripeAccess deleted the connection because Stripe refused the account), so only a new
 * connection can take card payments again. Methods come to exist only through a connection.
 */
export async function endedStripeMethods(ctx: DomainContext, projectId: string): Promise<Set<string>> {
  const methods = (await paymentMethodsTable.rows(ctx).where({ project_id: projectId, provider: "stripe" }).pluck("id")) as string[];
  const connected = (await connectionsTable
    .rows(ctx)
    .where({ project_id: projectId, provider: "stripe" })
    .whereNotNull("payment_method_id")
    .pluck("payment_method_id")) as string[];
  return new Set(methods.filter((id) => !connected.includes(id)));
}

/** What Stripe, asked afresh with the platform's key, says of a connected account. */
async function accountStanding(stripe: Stripe, account: string): Promise<"ready" | "onboarding" | "refused"> {
  try {
    return (await stripe.accounts.retrieve(account)).charges_enabled ? "ready" : "onboarding";
  } catch (err) {
    // Disconnected (account_invalid), deleted (resource_missing) or out of the platform's reach (403).
    const { code, statusCode } = err as { code?: unknown; statusCode?: unknown };
    if (accountAccessLost(err) || code === "resource_missing" || statusCode === 403) return "refused";
    throw err;
  }
}

/**
 * Why a Stripe method may not be turned on, asked of Stripe first (outside any transaction); null
 * when its account takes charges. An account Stripe refuses ends its access as a refused checkout
 * does (stripeAccessRefused), so the project is offered a new connection. A Stripe that cannot be
 * reached throws its error.
 */
export async function stripeTurnOnRefusal(
  db: Db,
  stripe: Stripe,
  registry: ProviderRegistry,
  row: PaymentMethodRow,
  now: Date,
): Promise<string | null> {
  const target = await registry.providerFor(row);
  if (!target) return "This method has no Stripe account SubBridge can reach, so it stays off. Connect Stripe again to take card payments.";
  const { account } = target.method;
  const standing = await accountStanding(stripe, account);
  if (standing === "onboarding")
    return `Stripe says the account ${account} cannot take payments yet (its onboarding is not finished), so the method stays off.`;
  if (standing === "ready") return null;
  await stripeAccessRefused(db, { teamId: row.team_id, projectId: row.project_id, methodId: row.id, account }, now);
  return `Stripe no longer accepts the account ${account} (it was disconnected from SubBridge in Stripe, or closed), so the method stays off. Connect Stripe again to take card payments.`;
}

/**
 * Why the method `methodId` of `projectId` may not be turned on, or null when it may: only a Stripe
 * method that is off needs Stripe's word first (stripeTurnOnRefusal; the Payments page's "Turn on"
 * and update_payment_method's preflight alike). Stripe unreachable throws its error.
 */
export async function turnOnRefusal(ctx: DomainContext, registry: ProviderRegistry, projectId: string, methodId: string): Promise<string | null> {
  const row = (await paymentMethodsTable.rows(ctx).where({ id: methodId, project_id: projectId }).first()) as PaymentMethodRow | undefined;
  if (row?.provider !== "stripe" || row.enabled) return null;
  if (!registry.stripe) return "This deployment takes no payments by Stripe, so a Stripe method cannot be turned on.";
  return stripeTurnOnRefusal(
    unscoped(ctx, "Stripe's refusal ends the account's access in its own transaction"),
    registry.stripe,
    registry,
    row,
    ctx.now,
  );
}

/**
 * update_payment_method's preflight for `enabled: true`: 422 with Stripe's reason when it refuses
 * (nothing changed but the ended access turnOnRefusal records), 503 SERVICE_BUSY when Stripe does not answer.
 */
export async function refuseTurnOn(ctx: DomainContext, registry: ProviderRegistry, projectId: string, methodId: string): Promise<void> {
  let refusal: string | null;
  try {
    refusal = await turnOnRefusal(ctx, registry, projectId, methodId);
  } catch (err) {
    if (!(err instanceof Stripe.errors.StripeError)) throw err;
    throw new ApiError("SERVICE_BUSY", "Stripe did not answer just now, so the method was not turned on. Try again.", {
      headers: { "Retry-After": "30" },
      context: { payment_method_id: methodId },
    });
  }
  if (refusal) throw domainRefusal(refusal, { payment_method_id: methodId });
}

/**
 * Telegram Stars for a project with an active Telegram installation: its method, in XTR only, made
 * at once (the installed bot is the whole connection). Null when the project already has one.
 * 422 naming `provider` without an active Telegram installation.
 */
export async function enableTelegramStars(ctx: DomainContext, projectId: string, mode: Environment): Promise<PaymentMethod | null> {
  await requireProject(ctx, projectId);
  if (!(await hasTelegramBot(ctx, projectId))) {
    const fields = emptyFieldErrors();
    addFieldError(fields, "provider", "Telegram Stars needs the project's Telegram bot installed and active");
    throw validationFailed(fields);
  }
  if ((await methodsOf(ctx, projectId, "telegram_stars")).length) return null;
  return createPaymentMethod(ctx, projectId, {
    provider: "telegram_stars",
    name: "Telegram Stars",
    mode,
    currencies: [STARS_CURRENCY],
    billing_cycles: STARS_CYCLES,
  });
}

export async function hasTelegramBot(ctx: DomainContext, projectId: string): Promise<boolean> {
  const row = await installationsTable.rows(ctx).where({ project_id: projectId, connector_key: "telegram", status: "active" }).first("id");
  return row !== undefined;
}
