import type { AppHandlers } from "../../pipeline/execute.ts";
import { domainContext } from "../../pipeline/context.ts";
import { getCurrentTeam } from "./teams.ts";

export const teamHandlers = {
  async get_current_team(_input, ctx) {
    return { data: await getCurrentTeam(domainContext(ctx)) };
  },
} satisfies Partial<AppHandlers>;
