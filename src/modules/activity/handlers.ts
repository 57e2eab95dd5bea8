import type { AppHandlers } from "../../pipeline/execute.ts";
import { domainContext } from "../../pipeline/context.ts";
import { listActivity } from "./activity-log.ts";

export const activityHandlers = {
  async get_activity_log({ query }, ctx) {
    return listActivity(domainContext(ctx), { subjectType: query.subject_type, subjectId: query.subject_id, limit: query.limit });
  },
} satisfies Partial<AppHandlers>;
