import type { AreaHandlers } from "../../../generated/operations.ts";
import { domainContext, type OperationContext, type Preflights } from "../../pipeline/context.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { projectPaymentsPage } from "../payment-methods/payments-page.ts";
import { archivePlan, checkPlanRoles, createPlan, deletePlan, getPlan, listPlans, publishPlan, updatePlan } from "./plans.ts";

export const handlers = {
  async list_plans({ path, query }, ctx) {
    const { rows, total } = await listPlans(domainContext(ctx), path.project, pageWindow(query), query.status);
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async create_plan({ path, body }, ctx) {
    return { data: await createPlan(domainContext(ctx), path.project, body) };
  },
  async get_plan({ path }, ctx) {
    return { data: await getPlan(domainContext(ctx), path.project, path.plan) };
  },
  async update_plan({ path, body }, ctx) {
    return { data: await updatePlan(domainContext(ctx), path.project, path.plan, body, projectPaymentsPage(ctx, path.project)) };
  },
  async delete_plan({ path }, ctx) {
    await deletePlan(domainContext(ctx), path.project, path.plan);
  },
  async publish_plan({ path }, ctx) {
    return { data: await publishPlan(domainContext(ctx), path.project, path.plan, projectPaymentsPage(ctx, path.project)) };
  },
  async archive_plan({ path }, ctx) {
    return { data: await archivePlan(domainContext(ctx), path.project, path.plan) };
  },
} satisfies AreaHandlers<OperationContext, "plans">;

/** A plan's roles are checked with the platform (the bot can give them) before publishing's transaction opens. */
export const preflights = {
  publish_plan: ({ path }, ctx) => checkPlanRoles(domainContext(ctx), ctx, path.project, path.plan),
} satisfies Preflights;
