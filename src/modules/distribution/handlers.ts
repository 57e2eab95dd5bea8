import type { AreaHandlers } from "../../../generated/operations.ts";
import { domainContext, type OperationContext } from "../../pipeline/context.ts";
import { deepLink, portalUrl } from "./distribution.ts";

export const handlers = {
  async get_deep_link({ path, query }, ctx) {
    return { data: await deepLink(domainContext(ctx), path.project, query) };
  },
  async get_portal_url({ path }, ctx) {
    return { data: await portalUrl(domainContext(ctx), ctx.portalUrl, path.project) };
  },
} satisfies AreaHandlers<OperationContext, "distribution">;
