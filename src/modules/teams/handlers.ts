import type { AreaHandlers } from "../../../generated/operations.ts";
import { domainContext, type OperationContext } from "../../pipeline/context.ts";
import { getCurrentTeam } from "./teams.ts";

export const handlers = {
  async get_current_team(_input, ctx) {
    return { data: await getCurrentTeam(domainContext(ctx)) };
  },
} satisfies AreaHandlers<OperationContext, "teams">;
