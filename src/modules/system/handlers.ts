import type { AppHandlers } from "../../pipeline/execute.ts";

export const systemHandlers = {
  async ping(_input, ctx) {
    return { data: { status: "ok" as const, release: ctx.release, time: ctx.now.toISOString() } };
  },
} satisfies Partial<AppHandlers>;
