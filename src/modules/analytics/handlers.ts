import type { AreaHandlers } from "../../../generated/operations.ts";
import { domainContext, type OperationContext } from "../../pipeline/context.ts";
import { dashboardNumbers } from "./analytics.ts";

export const handlers = {
  async get_team_analytics({ query }, ctx) {
    return { data: await dashboardNumbers(domainContext(ctx), null, query) };
  },
  async get_project_analytics({ path, query }, ctx) {
    return { data: await dashboardNumbers(domainContext(ctx), path.project, query) };
  },
} satisfies AreaHandlers<OperationContext, "analytics">;
