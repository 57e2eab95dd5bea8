import type { AreaHandlers } from "../../../generated/operations.ts";
import { domainContext, type OperationContext } from "../../pipeline/context.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { cancelSubscription, extendSubscription, getSubscription, listSubscriptions } from "./subscriptions.ts";

export const handlers = {
  async list_subscriptions({ query }, ctx) {
    const { rows, total } = await listSubscriptions(domainContext(ctx), { status: query.status, plan_id: query.plan_id }, pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async get_subscription({ path }, ctx) {
    return { data: await getSubscription(domainContext(ctx), path.subscription) };
  },
  async cancel_subscription({ path, body }, ctx) {
    return { data: await cancelSubscription(domainContext(ctx), path.subscription, { atPeriodEnd: body?.at_period_end ?? true }) };
  },
  async extend_subscription({ path, body }, ctx) {
    return { data: await extendSubscription(domainContext(ctx), path.subscription, body.days) };
  },
} satisfies AreaHandlers<OperationContext, "subscriptions">;
