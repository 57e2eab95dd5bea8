import type { OperationContext } from "../../pipeline/context.ts";
import type { AreaHandlers } from "../../../generated/operations.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { listConnectorCards } from "./catalog-page.ts";

export const handlers = {
  // The catalog holds no team data: the pipeline's ability and tenancy checks are the whole gate.
  async list_connectors({ query }, ctx) {
    const { rows, total } = listConnectorCards(ctx.connectors, pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
} satisfies AreaHandlers<OperationContext, "connectors">;
