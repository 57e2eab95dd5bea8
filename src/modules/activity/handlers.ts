import type { AreaHandlers } from "../../../generated/operations.ts";
import { domainContext, type OperationContext } from "../../pipeline/context.ts";
import { listActivity } from "./activity-log.ts";

export const handlers = {
  async get_activity_log({ query }, ctx) {
    return listActivity(domainContext(ctx), { subjectType: query.subject_type, subjectId: query.subject_id, limit: query.limit });
  },
} satisfies AreaHandlers<OperationContext, "activity">;
