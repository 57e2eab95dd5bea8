// Every operation's handler. `satisfies AppHandlers` makes tsc fail when the spec gains an
// operation without a handler or a handler returns the wrong shape.
import type { AppHandlers } from "../operations/execute.ts";
import { activityHandlers } from "./activity.ts";
import { connectorHandlers } from "./connectors.ts";
import { systemHandlers } from "./system.ts";
import { teamHandlers } from "./teams.ts";
import { tokenHandlers } from "./tokens.ts";

export const handlers = {
  ...systemHandlers,
  ...teamHandlers,
  ...tokenHandlers,
  ...activityHandlers,
  ...connectorHandlers,
} satisfies AppHandlers;
