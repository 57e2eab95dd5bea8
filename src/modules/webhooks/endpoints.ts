// A team's webhook endpoints: register (the URL guarded, the secret returned once and kept sealed
// with APP_KEY, bound to the endpoint's id), read, change, delete and rotate the secret. Changing an
// endpoint is for the member who registered it or the team owner (403 FORBIDDEN for others). Every
// change writes its activity entry on the endpoint; none emits an event.
import { randomUUID } from "node:crypto";
import { ApiError, addFieldError, emptyFieldErrors, notFound, validationFailed, type FieldErrors } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { sortedPage, type PageWindow } from "../../db/pages.ts";
import { decrypt, encrypt, randomToken } from "../../security/crypto.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { assertProjectsVisible } from "../projects/tables.ts";
import { iso } from "../resources/catalog-change.ts";
import { teamsTable } from "../teams/tables.ts";
import { checkWebhookUrl, isAddressOrRange, type WebhookNetwork } from "./address-guard.ts";
import { webhookLimits, type WebhookLimits } from "./limits.ts";
import { filterAbility, type WebhookEventFilter } from "./samples.ts";
import { SECRET_PREFIX } from "./signature.ts";
import { webhookEndpointsTable, type WebhookEndpointRow } from "./tables.ts";

/** What the endpoint operations need beyond the domain context. */
export interface WebhookEnvironment {
  appKey: Buffer;
  network: WebhookNetwork;
  /** The caller's team-wide abilities (billing.* needs billing:read). */
  abilities: ReadonlySet<string>;
}

export function presentEndpoint(row: WebhookEndpointRow) {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    events: [...row.events] as WebhookEventFilter[],
    allowed_ips: row.allowed_ips === null ? null : [...row.allowed_ips],
    project_id: row.project_id,
    is_active: row.is_active,
    disabled_at: iso(row.disabled_at),
    consecutive_failures: row.consecutive_failures,
    created_by_user_id: row.created_by_user_id,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

export type WebhookEndpoint = ReturnType<typeof presentEndpoint>;

/** What an endpoint's secret is sealed to: it opens nowhere else. */
const secretBinding = (endpointId: string) => `webhook_endpoints:${endpointId}`;

function newSecret(appKey: Buffer, endpointId: string) {
  const secret = `${SECRET_PREFIX}${randomToken(40)}`;
  return { secret, sealed: encrypt(appKey, secret, secretBinding(endpointId)) };
}

/** The endpoint's signing secret, unsealed (the test call and the delivery workers sign with it). */
export function endpointSecret(appKey: Buffer, row: Pick<WebhookEndpointRow, "id" | "secret_sealed">): string {
  return decrypt(appKey, row.secret_sealed, secretBinding(row.id));
}

export async function endpointById(ctx: DomainContext, id: string): Promise<WebhookEndpointRow> {
  const row = (await webhookEndpointsTable.rows(ctx).where({ id }).first()) as WebhookEndpointRow | undefined;
  if (!row) throw notFound("webhook endpoint");
  return row;
}

/** The endpoint, when the actor registered it or owns the team; 403 FORBIDDEN otherwise. */
export async function changeableEndpoint(ctx: DomainContext, id: string): Promise<WebhookEndpointRow> {
  const row = await endpointById(ctx, id);
  if (row.created_by_user_id === ctx.actor.userId) return row;
  const team = (await teamsTable.rows(ctx).first("owner_user_id")) as { owner_user_id: string } | undefined;
  if (team && team.owner_user_id === ctx.actor.userId) return row;
  throw new ApiError("FORBIDDEN", "Only the member who registered this webhook endpoint or the team owner may change it.", {
    context: { endpoint_id: id },
    remediation: "Ask the member who registered it, or the team owner.",
  });
}

const SORT: Record<string, string> = { created_at: "created_at", name: "lower(name)" };

export async function listEndpoints(ctx: DomainContext, window: PageWindow) {
  const { rows, total } = await sortedPage<WebhookEndpointRow>(webhookEndpointsTable.rows(ctx).select("*"), window, SORT);
  return { rows: rows.map(presentEndpoint), total };
}

export async function getEndpoint(ctx: DomainContext, id: string) {
  return presentEndpoint(await endpointById(ctx, id));
}

function checkEvents(env: WebhookEnvironment, events: readonly string[]) {
  for (const filter of events) {
    const needed = filterAbility(filter);
    if (needed && !env.abilities.has(needed)) {
      throw new ApiError("TOKEN_MISSING_ABILITY", `Subscribing to ${filter} needs the ability ${needed}.`, {
        context: { required_ability: needed },
      });
    }
  }
}

function checkAllowedIps(fields: FieldErrors, allowedIps: readonly string[] | null | undefined) {
  for (const entry of allowedIps ?? []) {
    if (!isAddressOrRange(entry)) addFieldError(fields, "allowed_ips", `${entry} is not an IPv4/IPv6 address or CIDR range`);
  }
}

/**
 * 422 VALIDATION_FAILED (context.reason endpoint_limit, limit, count) unless the team may register
 * one more endpoint. The team's row stays locked until the transaction ends, so two registrations
 * cannot both take the last place.
 */
async function requireEndpointPlace(ctx: DomainContext, limits: WebhookLimits): Promise<void> {
  await teamsTable.rows(ctx).forUpdate().first("id");
  const count = Number((await webhookEndpointsTable.teamRows(ctx).count({ n: "*" }).first())?.n ?? 0);
  if (count < limits.endpointsPerTeam) return;
  throw new ApiError("VALIDATION_FAILED", `A team registers at most ${limits.endpointsPerTeam} webhook endpoints; this team has ${count}.`, {
    context: { reason: "endpoint_limit", limit: limits.endpointsPerTeam, count },
    remediation: "Delete an endpoint the team no longer uses, or subscribe an existing endpoint to more events.",
  });
}

export interface EndpointInput {
  name: string;
  url: string;
  events: WebhookEventFilter[];
  allowed_ips?: string[] | null;
  project_id?: string;
}

export async function createEndpoint(ctx: DomainContext, env: WebhookEnvironment, input: EndpointInput) {
  if (input.project_id !== undefined) await assertProjectsVisible(ctx, [input.project_id]);
  else if (ctx.actor.projectIds !== null) {
    throw new ApiError("TENANT_MISMATCH", "A token restricted to projects registers endpoints for one of them: name it in project_id.", {
      remediation: "Send project_id, one of the token's projects, or use a token for the whole team.",
    });
  }
  checkEvents(env, input.events);
  const fields = emptyFieldErrors();
  checkAllowedIps(fields, input.allowed_ips);
  const checked = await checkWebhookUrl(input.url, env.network);
  if (!checked.ok) addFieldError(fields, "url", checked.message);
  if (Object.keys(fields).length) throw validationFailed(fields);
  await requireEndpointPlace(ctx, webhookLimits(env.network.limits));
  const id = randomUUID();
  const { secret, sealed } = newSecret(env.appKey, id);
  const row = {
    id,
    project_id: input.project_id ?? null,
    created_by_user_id: ctx.actor.userId!,
    name: input.name,
    url: checked.ok ? checked.url.href : input.url,
    events: [...new Set(input.events)],
    allowed_ips: input.allowed_ips ?? null,
    secret_sealed: sealed,
    is_active: true,
    disabled_at: null,
    consecutive_failures: 0,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  await webhookEndpointsTable.insert(ctx, {
    ...row,
    events: JSON.stringify(row.events),
    allowed_ips: row.allowed_ips === null ? null : JSON.stringify(row.allowed_ips),
  });
  const endpoint = presentEndpoint({ ...row, team_id: ctx.actor.teamId });
  await recordEndpointChange(ctx, endpoint, "created", { ...endpoint });
  return { data: endpoint, secret };
}

export type EndpointUpdate = Partial<Pick<EndpointInput, "name" | "events" | "allowed_ips">> & { is_active?: boolean };

export async function updateEndpoint(ctx: DomainContext, env: WebhookEnvironment, id: string, input: EndpointUpdate) {
  const row = await changeableEndpoint(ctx, id);
  if (input.events) checkEvents(env, input.events);
  const fields = emptyFieldErrors();
  checkAllowedIps(fields, input.allowed_ips);
  if (Object.keys(fields).length) throw validationFailed(fields);
  const changes: Partial<WebhookEndpointRow> = { updated_at: ctx.now };
  if (input.name !== undefined) changes.name = input.name;
  if (input.events !== undefined) changes.events = [...new Set(input.events)];
  if (input.allowed_ips !== undefined) changes.allowed_ips = input.allowed_ips;
  if (input.is_active !== undefined) changes.is_active = input.is_active;
  // Re-enabling starts the failure count afresh (a disabled endpoint stays so until then).
  if (input.is_active === true) Object.assign(changes, { consecutive_failures: 0, disabled_at: null });
  await webhookEndpointsTable
    .rows(ctx)
    .where({ id })
    .update({
      ...changes,
      ...(changes.events ? { events: JSON.stringify(changes.events) } : {}),
      ...(changes.allowed_ips ? { allowed_ips: JSON.stringify(changes.allowed_ips) } : {}),
    });
  const endpoint = presentEndpoint({ ...row, ...changes });
  const reenabled = input.is_active === true && (!row.is_active || row.disabled_at !== null);
  await recordEndpointChange(ctx, endpoint, reenabled ? "re-enabled" : "updated", { ...input });
  return endpoint;
}

export async function deleteEndpoint(ctx: DomainContext, id: string) {
  const row = await changeableEndpoint(ctx, id);
  await webhookEndpointsTable.rows(ctx).where({ id }).delete();
  await recordEndpointChange(ctx, presentEndpoint(row), "deleted", { name: row.name, url: row.url });
}

export async function rotateSecret(ctx: DomainContext, env: WebhookEnvironment, id: string) {
  const row = await changeableEndpoint(ctx, id);
  const { secret, sealed } = newSecret(env.appKey, id);
  await webhookEndpointsTable.rows(ctx).where({ id }).update({ secret_sealed: sealed, updated_at: ctx.now });
  const endpoint = presentEndpoint({ ...row, updated_at: ctx.now });
  await recordEndpointChange(ctx, endpoint, "secret_rotated", {});
  return { data: endpoint, secret };
}

function recordEndpointChange(ctx: DomainContext, endpoint: WebhookEndpoint, event: string, properties: Record<string, unknown>) {
  return recordActivity(ctx, {
    event,
    description: `Webhook endpoint "${endpoint.name}" ${event.replace("_", " ")}`,
    subjectType: "webhook-endpoint",
    subjectId: endpoint.id,
    projectId: endpoint.project_id,
    properties,
  });
}
