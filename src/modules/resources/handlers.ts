import type { AreaHandlers } from "../../../generated/operations.ts";
import { domainContext, type OperationContext } from "../../pipeline/context.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { createResource, deleteResource, getResource, listResources, updateResource } from "./resources.ts";

export const handlers = {
  async list_resources({ path, query }, ctx) {
    const { rows, total } = await listResources(domainContext(ctx), path.project, pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async create_resource({ path, body }, ctx) {
    return { data: await createResource(domainContext(ctx), ctx.connectors, path.project, body, { baseUrl: ctx.baseUrl }) };
  },
  async get_resource({ path }, ctx) {
    return { data: await getResource(domainContext(ctx), path.project, path.resource) };
  },
  async update_resource({ path, body }, ctx) {
    return { data: await updateResource(domainContext(ctx), ctx.connectors, path.project, path.resource, body, { baseUrl: ctx.baseUrl }) };
  },
  async delete_resource({ path }, ctx) {
    await deleteResource(domainContext(ctx), path.project, path.resource);
  },
} satisfies AreaHandlers<OperationContext, "resources">;
