import type { AppHandlers } from "../operations/execute.ts";
import { domainContext } from "../operations/context.ts";
import { listActivity } from "../domain/activity.ts";

export const activityHandlers = {
  async get_activity_log({ query }, ctx) {
    return listActivity(domainContext(ctx), { subjectType: query.subject_type, subjectId: query.subject_id, limit: query.limit });
  },
} satisfies Partial<AppHandlers>;
