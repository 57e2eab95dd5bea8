import type { AreaHandlers } from "../../../generated/operations.ts";
import { creatorContext, domainContext, type OperationContext } from "../../pipeline/context.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { listCreatorTasks } from "./tasks.ts";
import { completeCreatorTask } from "./completion.ts";

export const handlers = {
  async list_creator_tasks({ path, query }, ctx) {
    const { rows, total } = await listCreatorTasks(domainContext(ctx), path.project, query.status ?? "open", pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async complete_creator_task({ path }, ctx) {
    return { data: await completeCreatorTask(creatorContext(ctx), path.project, path.creator_task) };
  },
} satisfies AreaHandlers<OperationContext, "creator-tasks">;
