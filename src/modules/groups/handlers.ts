import type { AreaHandlers } from "../../../generated/operations.ts";
import { domainContext, type OperationContext } from "../../pipeline/context.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { createGroup, deleteGroup, getGroup, listGroups, updateGroup } from "./groups.ts";

export const handlers = {
  async list_groups({ query }, ctx) {
    const { rows, total } = await listGroups(domainContext(ctx), pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async create_group({ body }, ctx) {
    return { data: await createGroup(domainContext(ctx), body) };
  },
  async get_group({ path }, ctx) {
    return { data: await getGroup(domainContext(ctx), path.group) };
  },
  async update_group({ path, body }, ctx) {
    return { data: await updateGroup(domainContext(ctx), path.group, body) };
  },
  async delete_group({ path }, ctx) {
    await deleteGroup(domainContext(ctx), path.group);
  },
} satisfies AreaHandlers<OperationContext, "groups">;
