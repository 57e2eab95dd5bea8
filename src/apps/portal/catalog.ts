// What a project's portal shows, read as the project's team (the handle named the project): its
// published plans and the resources each grants, its connected installations with their
// connector's portal button, and a member's subscriptions and grants.
import { createDomainContext, type Actor, type DomainContext } from "../../db/tenant.ts";
import type { PortalProject } from "../../modules/projects/handles.ts";
import { planResourcesTable, plansTable, type PlanRow } from "../../modules/plans/tables.ts";
import { resourcesTable, type ResourceRow } from "../../modules/resources/tables.ts";
import { installationsTable, type InstallationRow } from "../../modules/connectors/tables.ts";
import { actingInstallations } from "../../modules/connectors/acting-installation.ts";
import { grantsTable, subscriptionsTable, type GrantRow, type SubscriptionRow } from "../../modules/subscriptions/tables.ts";
import type { ConnectorRegistry } from "../../modules/connectors/registry.ts";
import type { PortalDeps } from "./deps.ts";
import type { PlatformEndpoints } from "../../config.ts";

/** A person on the portal acts on one project of the team that owns it. */
export function portalContext(deps: Pick<PortalDeps, "db" | "now">, project: PortalProject, requestId: string | null, db = deps.db): DomainContext {
  const actor: Actor = { userId: null, teamId: project.team_id, projectIds: [project.id], kind: "human", credentialKind: null, requestId };
  return createDomainContext(db, actor, deps.now());
}

export interface PortalResource {
  title: string;
  /** What the connector calls this kind of place for members ("Channel"). */
  label: string | null;
}

/** The label members read for a resource's kind (the manifest's portal_label). */
function resourceLabel(connectors: ConnectorRegistry, row: Pick<ResourceRow, "connector_key" | "kind">): string | null {
  return connectors.card(row.connector_key)?.resource_kinds.find((k) => k.kind === row.kind)?.portal_label ?? null;
}

async function resourcesById(ctx: DomainContext, connectors: ConnectorRegistry, ids: string[]): Promise<Map<string, PortalResource>> {
  if (!ids.length) return new Map();
  const rows = (await resourcesTable.rows(ctx).whereIn("id", ids).select("id", "title", "kind", "connector_key")) as ResourceRow[];
  return new Map(rows.map((r) => [r.id, { title: r.title, label: resourceLabel(connectors, r) }]));
}

export interface PortalPlan {
  plan: PlanRow;
  resources: PortalResource[];
}

/** Published plans on sale (not the access-code-only ones), cheapest first, with what each grants. */
export async function publishedPlans(ctx: DomainContext, connectors: ConnectorRegistry, projectId: string): Promise<PortalPlan[]> {
  const plans = (await plansTable
    .rows(ctx)
    .where({ project_id: projectId, status: "published", access_codes_only: false })
    .orderBy([{ column: "amount_minor" }, { column: "created_at" }, { column: "id" }])) as PlanRow[];
  if (!plans.length) return [];
  const links = (await planResourcesTable
    .rows(ctx)
    .whereIn(
      "plan_id",
      plans.map((p) => p.id),
    )
    .orderBy("position")) as { plan_id: string; resource_id: string }[];
  const resources = await resourcesById(ctx, connectors, [...new Set(links.map((l) => l.resource_id))]);
  return plans.map((plan) => ({
    plan,
    resources: links.filter((l) => l.plan_id === plan.id).flatMap((l) => resources.get(l.resource_id) ?? []),
  }));
}

export interface PortalInstallation {
  installation: InstallationRow;
  connectorName: string;
  /** The manifest's portal button label, when the connector declares one. */
  cta: string | null;
  /** Whether members can sign in to the portal through this connector (capability portal_login). */
  signIn: boolean;
}

/**
 * In a sandbox, a Telegram bot is opened on the simulated Telegram page (where a person plays the
 * member), since the bot a t.me link names does not exist on the real Telegram.
 */
export function memberFacingInstallation(
  installation: InstallationRow,
  platforms: Pick<PlatformEndpoints, "telegramSimulatorPage">,
): InstallationRow {
  const bot = /^https:\/\/t\.me\/([A-Za-z0-9_]+)$/.exec(installation.bot_url ?? "")?.[1];
  if (!platforms.telegramSimulatorPage || bot === undefined) return installation;
  const page = new URL(platforms.telegramSimulatorPage);
  page.searchParams.set("bot", bot);
  return { ...installation, bot_url: page.toString() };
}

/** The project's connected installations that have a bot to open, oldest first, as members open them. */
export async function connectedInstallations(
  ctx: DomainContext,
  connectors: ConnectorRegistry,
  projectId: string,
  platforms: Pick<PlatformEndpoints, "telegramSimulatorPage">,
): Promise<PortalInstallation[]> {
  const rows = (await installationsTable
    .rows(ctx)
    .where({ project_id: projectId, status: "active" })
    .whereNotNull("bot_url")
    .orderBy([{ column: "created_at" }, { column: "id" }])) as InstallationRow[];
  // A standby that took over is the bot members open.
  return (await actingInstallations(ctx, rows)).map((installation) => {
    const card = connectors.card(installation.connector_key);
    return {
      installation: memberFacingInstallation(installation, platforms),
      connectorName: card?.name ?? installation.connector_key,
      cta: card?.portal_cta?.label ?? null,
      signIn: card?.capabilities.includes("portal_login") ?? false,
    };
  });
}

/** `<bot_url>?start=<payload>`: the link shape deep links use. */
export function startLink(installation: InstallationRow, payload: string): string {
  const link = new URL(installation.bot_url!);
  link.searchParams.set("start", payload);
  return link.toString();
}

export interface MemberHoldings {
  subscriptions: (SubscriptionRow & { plan_name: string })[];
  grants: (GrantRow & { resource: PortalResource | undefined })[];
}

/** The member's subscriptions (newest first) and grants. */
export async function memberHoldings(
  ctx: DomainContext,
  connectors: ConnectorRegistry,
  projectId: string,
  memberId: string,
): Promise<MemberHoldings> {
  const subscriptions = (await subscriptionsTable
    .rows(ctx)
    .where({ project_id: projectId, member_id: memberId })
    .orderBy([
      { column: "created_at", order: "desc" },
      { column: "id", order: "desc" },
    ])) as SubscriptionRow[];
  const planIds = [...new Set(subscriptions.map((s) => s.plan_id))];
  const plans = planIds.length ? ((await plansTable.rows(ctx).whereIn("id", planIds).select("id", "name")) as { id: string; name: string }[]) : [];
  const names = new Map(plans.map((p) => [p.id, p.name]));
  const grants = (await grantsTable.rows(ctx).where({ project_id: projectId, member_id: memberId }).orderBy("created_at")) as GrantRow[];
  const resources = await resourcesById(ctx, connectors, [...new Set(grants.map((g) => g.resource_id))]);
  return {
    subscriptions: subscriptions.map((s) => ({ ...s, plan_name: names.get(s.plan_id) ?? "A plan" })),
    grants: grants.map((g) => ({ ...g, resource: resources.get(g.resource_id) })),
  };
}
