// Why a member has each place of the project, or what is missing (get_member's `access`). The
// state comes from the access ledger (placeStates); the reason from the grant's subscription when
// the member is owed the place, and otherwise from their ban, their subscriptions and the plans
// that include the place. Codes: AccessReasonCode in members.yaml.
import type { DomainContext } from "../../db/tenant.ts";
import { planResourcesTable } from "../plans/tables.ts";
import { resourcesTable, type GrantMode } from "../resources/tables.ts";
import { isLive, subscriptionsTable, type SubscriptionRow } from "../subscriptions/tables.ts";
import { iso } from "../subscriptions/timestamps.ts";
import { placeStates, planNamesOf, stateOfRank, type PlaceState } from "./access.ts";
import type { MemberRow } from "./tables.ts";

type ReasonCode =
  | "access_code"
  | "payment"
  | "trial"
  | "past_due_grace"
  | "canceled_until_end"
  | "member_banned"
  | "platform_account_not_linked"
  | "subscription_ended"
  | "resource_added_after_subscription"
  | "plan_excludes_resource"
  | "no_subscription"
  | "resource_in_no_plan";

interface Resource {
  id: string;
  title: string;
  connector_key: string;
  grant_mode: GrantMode;
}

type Sub = SubscriptionRow & { plan_name: string };

/** What the covering subscription is, in the creator's words. */
function coverOf(sub: Sub, now: Date): { code: ReasonCode; message: string } {
  const until = sub.ends_at ? ` until ${iso(sub.ends_at)}` : " with no end (lifetime)";
  const plan = `the subscription to ${sub.plan_name}`;
  if (sub.status === "trialing") return { code: "trial", message: `Covered by the trial of ${sub.plan_name}; paid period${until}.` };
  if (sub.status === "past_due")
    return sub.ends_at && new Date(sub.ends_at) <= now
      ? { code: "past_due_grace", message: `Covered by ${plan}, whose payment failed: the grace ended and access is removed at the next expiry run.` }
      : { code: "past_due_grace", message: `Covered by ${plan}, whose renewal payment failed: access lasts through the grace${until}.` };
  if (sub.status === "canceled") return { code: "canceled_until_end", message: `Covered by ${plan}, cancelled: access${until}.` };
  return sub.source === "access_code"
    ? { code: "access_code", message: `Covered by ${plan} (redeemed access code), active${until}.` }
    : { code: "payment", message: `Covered by ${plan}, billed by ${sub.source}, active${until}.` };
}

/** What keeps the member from a place they have no live grant for. */
function missingOf(member: MemberRow, subs: Sub[], planIds: string[], now: Date): { code: ReasonCode; message: string; sub: Sub | null } {
  if (member.status === "banned") return { code: "member_banned", message: "The member is banned from this project.", sub: null };
  if (!planIds.length) return { code: "resource_in_no_plan", message: "No plan of the project includes this resource.", sub: null };
  const including = subs.filter((s) => planIds.includes(s.plan_id));
  const live = including.find((s) => isLive(s, now));
  if (live)
    return {
      code: "resource_added_after_subscription",
      message: `The subscription to ${live.plan_name} began before the resource was added to its plan; its grants were made then.`,
      sub: live,
    };
  const ended = including.at(-1);
  if (ended)
    return {
      code: "subscription_ended",
      message: `The subscription to ${ended.plan_name} ended (${ended.status}${ended.ends_at ? `, ${iso(ended.ends_at)}` : ""}); no live subscription includes this resource.`,
      sub: ended,
    };
  if (subs.some((s) => isLive(s, now)))
    return { code: "plan_excludes_resource", message: "The member's live subscription is to a plan without this resource.", sub: null };
  return { code: "no_subscription", message: "The member has no subscription to a plan that includes this resource.", sub: null };
}

/** Whether the connector can reach the member on the resource's platform (a creator task needs no account). */
function linked(member: MemberRow, resource: Resource): boolean {
  return resource.grant_mode === "creator_task" || (member.connector_key === resource.connector_key && member.external_user_id !== null);
}

export async function explainAccess(ctx: DomainContext, member: MemberRow) {
  const projectId = member.project_id;
  const [resources, links, rows, places] = await Promise.all([
    resourcesTable
      .rows(ctx)
      .where({ project_id: projectId })
      .orderBy([{ column: "created_at" }, { column: "id" }])
      .select("id", "title", "connector_key", "grant_mode") as Promise<Resource[]>,
    planResourcesTable.rows(ctx).where({ project_id: projectId }).orderBy("plan_id").select("plan_id", "resource_id") as Promise<
      { plan_id: string; resource_id: string }[]
    >,
    subscriptionsTable
      .rows(ctx)
      .where({ member_id: member.id })
      .orderBy([{ column: "created_at" }, { column: "id" }])
      .select("*") as Promise<SubscriptionRow[]>,
    placeStates(ctx, projectId, [member.id]) as Promise<PlaceState[]>,
  ]);
  const names = await planNamesOf(
    ctx,
    rows.map((r) => r.plan_id),
  );
  const subs: Sub[] = rows.map((r) => ({ ...r, plan_name: names.get(r.plan_id) ?? "" }));
  const byResource = new Map(places.map((p) => [p.resource_id, p]));
  const byId = new Map(subs.map((s) => [s.id, s]));
  return resources.map((resource) => {
    const planIds = links.filter((l) => l.resource_id === resource.id).map((l) => l.plan_id);
    const place = byResource.get(resource.id);
    const sub = place ? (byId.get(place.subscription_id) ?? null) : null;
    const state = stateOfRank(place ? Number(place.rank) : 0);
    let reason: { code: ReasonCode; message: string };
    let about = sub;
    if (place && sub) {
      reason =
        state !== "granted" && !linked(member, resource)
          ? {
              code: "platform_account_not_linked",
              message: `The member has no ${resource.connector_key} account linked, so the connector cannot give this resource.`,
            }
          : coverOf(sub, ctx.now);
    } else {
      const { sub: concerned, ...missing } = missingOf(member, subs, planIds, ctx.now);
      reason = missing;
      about = concerned;
    }
    return {
      resource_id: resource.id,
      resource_title: resource.title,
      connector_key: resource.connector_key,
      grant_mode: resource.grant_mode,
      state,
      grant_id: place?.grant_id ?? null,
      platform_error: state === "failed" ? (place?.platform_error ?? null) : null,
      reason: {
        ...reason,
        subscription_id: about?.id ?? null,
        plan_id: about?.plan_id ?? null,
        plan_name: about?.plan_name ?? null,
        source: about?.source ?? null,
        ends_at: iso(about?.ends_at ?? null),
        plan_ids: planIds,
      },
    };
  });
}
