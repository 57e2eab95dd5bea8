import type { AreaHandlers } from "../../../generated/operations.ts";
import { domainContext, type OperationContext } from "../../pipeline/context.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { createPassWindow, deletePassWindow, getPassWindow, listPassWindows, updatePassWindow } from "./pass-windows.ts";

export const handlers = {
  async list_pass_windows({ path, query }, ctx) {
    const { rows, total } = await listPassWindows(domainContext(ctx), path.project, path.plan, pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async create_pass_window({ path, body }, ctx) {
    return { data: await createPassWindow(domainContext(ctx), path.project, path.plan, body) };
  },
  async get_pass_window({ path }, ctx) {
    return { data: await getPassWindow(domainContext(ctx), path.project, path.plan, path.pass_window) };
  },
  async update_pass_window({ path, body }, ctx) {
    return { data: await updatePassWindow(domainContext(ctx), path.project, path.plan, path.pass_window, body) };
  },
  async delete_pass_window({ path }, ctx) {
    await deletePassWindow(domainContext(ctx), path.project, path.plan, path.pass_window);
  },
} satisfies AreaHandlers<OperationContext, "pass-windows">;
