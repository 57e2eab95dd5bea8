import type { AppHandlers } from "../operations/execute.ts";
import { domainContext } from "../operations/context.ts";
import { getCurrentTeam } from "../domain/teams.ts";

export const teamHandlers = {
  async get_current_team(_input, ctx) {
    return { data: await getCurrentTeam(domainContext(ctx)) };
  },
} satisfies Partial<AppHandlers>;
