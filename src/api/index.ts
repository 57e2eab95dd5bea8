// Every operation's handler. `satisfies AppHandlers` makes tsc fail when the spec gains an
// operation without a handler or a handler returns the wrong shape.
import type { AppHandlers } from "../pipeline/execute.ts";
import { activityHandlers } from "../modules/activity/handlers.ts";
import { connectorHandlers } from "../modules/connectors/handlers.ts";
import { systemHandlers } from "../modules/system/handlers.ts";
import { teamHandlers } from "../modules/teams/handlers.ts";
import { tokenHandlers } from "../modules/tokens/handlers.ts";

export const handlers = {
  ...systemHandlers,
  ...teamHandlers,
  ...tokenHandlers,
  ...activityHandlers,
  ...connectorHandlers,
} satisfies AppHandlers;
