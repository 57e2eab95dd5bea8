import type { AreaHandlers } from "../../../generated/operations.ts";
import { creatorContext, type OperationContext } from "../../pipeline/context.ts";
import { listDestinations, replaceDestinations } from "./alert-destinations.ts";
import { identitiesOf, presentIdentity, unlinkIdentity } from "./identities.ts";

export const handlers = {
  async list_identities(_input, ctx) {
    return { data: (await identitiesOf(creatorContext(ctx))).map(presentIdentity) };
  },
  async unlink_identity({ path }, ctx) {
    await unlinkIdentity(creatorContext(ctx), path.identity);
  },
  async list_alert_destinations(_input, ctx) {
    return { data: await listDestinations(creatorContext(ctx)) };
  },
  async replace_alert_destinations({ body }, ctx) {
    return { data: await replaceDestinations(creatorContext(ctx), body.destinations) };
  },
} satisfies AreaHandlers<OperationContext, "account">;
