import type { AreaHandlers, Output } from "../../../generated/operations.ts";
import { domainContext, type OperationContext } from "../../pipeline/context.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { exportTransactions } from "./export.ts";
import { listTransactions, listTransactionsAfter } from "./transactions.ts";

export const handlers = {
  async export_transactions({ path, query }, ctx) {
    const { status, kind, plan_id, currency, from, to } = query;
    return exportTransactions(domainContext(ctx), path.project, { status, kind, plan_id, currency, from, to });
  },
  async list_transactions({ path, query }, ctx) {
    const { status, kind, plan_id, currency, from, to } = query;
    const filters = { status, kind, plan_id, currency, from, to };
    if (ctx.toolArguments) {
      // The MCP tool pages by keyset (x-mcp-keyset): its result is {data, meta: {per_page, next_cursor}}.
      const page = { perPage: query.per_page, cursor: ctx.toolArguments.cursor };
      return (await listTransactionsAfter(domainContext(ctx), path.project, filters, page)) as unknown as Output<"list_transactions">;
    }
    const { rows, total } = await listTransactions(domainContext(ctx), path.project, filters, pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
} satisfies AreaHandlers<OperationContext, "transactions">;
