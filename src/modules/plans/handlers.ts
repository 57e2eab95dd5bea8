import type { AreaHandlers } from "../../../generated/operations.ts";
import { domainContext, type OperationContext } from "../../pipeline/context.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { archivePlan, createPlan, deletePlan, getPlan, listPlans, publishPlan, updatePlan } from "./plans.ts";

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
    return { data: await updatePlan(domainContext(ctx), path.project, path.plan, body) };
  },
  async delete_plan({ path }, ctx) {
    await deletePlan(domainContext(ctx), path.project, path.plan);
  },
  async publish_plan({ path }, ctx) {
    return { data: await publishPlan(domainContext(ctx), path.project, path.plan) };
  },
  async archive_plan({ path }, ctx) {
    return { data: await archivePlan(domainContext(ctx), path.project, path.plan) };
  },
} satisfies AreaHandlers<OperationContext, "plans">;
