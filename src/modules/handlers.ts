// Every area's handlers, gathered for the pipeline: one line per area (src/modules/<area>/handlers.ts).
// Typed as the spec's whole operation table, so tsc fails when an area is left out here or its
// module lacks one of its operations.
import { cancelAtProvider } from "./payments/cancel.ts";
import { refuseTurnOn } from "./payments/connections.ts";
import type { Handlers } from "../../generated/operations.ts";
import { domainContext, type OperationContext, type Preflights } from "../pipeline/context.ts";
import { handlers as accessCodes } from "./access-codes/handlers.ts";
import { handlers as account } from "./account/handlers.ts";
import { handlers as activity } from "./activity/handlers.ts";
import { handlers as analytics } from "./analytics/handlers.ts";
import { handlers as broadcasts } from "./broadcasts/handlers.ts";
import { handlers as connectors, preflights as connectorPreflights } from "./connectors/handlers.ts";
import { handlers as coupons } from "./coupons/handlers.ts";
import { handlers as creatorTasks } from "./creator-tasks/handlers.ts";
import { handlers as distribution } from "./distribution/handlers.ts";
import { handlers as groups } from "./groups/handlers.ts";
import { handlers as members } from "./members/handlers.ts";
import { handlers as passWindows } from "./pass-windows/handlers.ts";
import { handlers as paymentMethods } from "./payment-methods/handlers.ts";
import { handlers as plans, preflights as planPreflights } from "./plans/handlers.ts";
import { handlers as projects } from "./projects/handlers.ts";
import { handlers as recovery } from "./recovery/handlers.ts";
import { handlers as resources } from "./resources/handlers.ts";
import { handlers as roles } from "./roles/handlers.ts";
import { handlers as subscriptions } from "./subscriptions/handlers.ts";
import { handlers as support } from "./support/handlers.ts";
import { handlers as system } from "./system/handlers.ts";
import { handlers as teams } from "./teams/handlers.ts";
import { handlers as tokens } from "./tokens/handlers.ts";
import { handlers as transactions } from "./transactions/handlers.ts";
import { handlers as webhooks } from "./webhooks/handlers.ts";

/** One handler per operation of the spec. */
export const handlers: Handlers<OperationContext> = {
  ...accessCodes,
  ...account,
  ...activity,
  ...analytics,
  ...broadcasts,
  ...connectors,
  ...coupons,
  ...creatorTasks,
  ...distribution,
  ...groups,
  ...members,
  ...passWindows,
  ...paymentMethods,
  ...plans,
  ...projects,
  ...recovery,
  ...resources,
  ...roles,
  ...subscriptions,
  ...support,
  ...system,
  ...teams,
  ...tokens,
  ...transactions,
  ...webhooks,
};

/** The operations that do work before their transaction opens (see Preflights). */
export const preflights: Preflights = {
  ...connectorPreflights,
  ...planPreflights,
  // A provider-billed subscription's renewals stop at the provider before it is cancelled here.
  cancel_subscription: ({ path }, ctx) => cancelAtProvider(domainContext(ctx), ctx.payments(), path.subscription),
  // A Stripe method is turned on only once Stripe says it still accepts the method's account, as the Payments page does.
  update_payment_method: ({ path, body }, ctx) =>
    body.enabled === true ? refuseTurnOn(domainContext(ctx), ctx.payments(), path.project, path.payment_method) : Promise.resolve(),
};
