import type { AreaHandlers } from "../../../generated/operations.ts";
import { domainContext, type OperationContext } from "../../pipeline/context.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { cancelBroadcast, createBroadcast, getBroadcast, listBroadcasts, listRecipients } from "./broadcasts.ts";

export const handlers = {
  async list_broadcasts({ path, query }, ctx) {
    const { rows, total } = await listBroadcasts(domainContext(ctx), path.project, pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async create_broadcast({ path, body }, ctx) {
    return { data: await createBroadcast(domainContext(ctx), ctx.connectors, path.project, body) };
  },
  async get_broadcast({ path }, ctx) {
    return { data: await getBroadcast(domainContext(ctx), path.project, path.broadcast) };
  },
  async list_broadcast_recipients({ path, query }, ctx) {
    const { rows, total } = await listRecipients(domainContext(ctx), path.project, path.broadcast, query.status, pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async cancel_broadcast({ path }, ctx) {
    return { data: await cancelBroadcast(domainContext(ctx), path.project, path.broadcast) };
  },
} satisfies AreaHandlers<OperationContext, "broadcasts">;
