import type { OperationContext } from "../../pipeline/context.ts";
import type { AreaHandlers } from "../../../generated/operations.ts";

export const handlers = {
  async ping(_input, ctx) {
    return { data: { status: "ok" as const, release: ctx.release, time: ctx.now.toISOString() } };
  },
} satisfies AreaHandlers<OperationContext, "system">;
