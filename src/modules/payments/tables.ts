// The payments area's tables. A checkout belongs to its team and project; the provider event inbox
// is read by provider id before any team is known (an event names our checkout, not a team), so
// it is reached unscoped, with the reason named where it is.
import { tenantTable } from "../../db/tenant.ts";

export const checkoutsTable = tenantTable("payment_checkouts", { team: "team_id", project: "project_id" });
/** Tagged with its team once matched; written and read unscoped (apply.ts), since it arrives before that. */
export const providerEventsTable = tenantTable("payment_provider_events", { team: "team_id" });

/** Refunds owed to members for superseded checkouts (reconcile-owed.ts). */
export const owedRefundsTable = tenantTable("payment_refunds_owed", { team: "team_id", project: "project_id" });

/** A project's pending or completed provider connection (connections.ts): how a payment method comes to be. */
export const connectionsTable = tenantTable("payment_connections", { team: "team_id", project: "project_id" });

export interface ConnectionRow {
  id: string;
  team_id: string;
  project_id: string;
  provider: string;
  account: string | null;
  currencies: string[];
  status: "pending" | "completed";
  payment_method_id: string | null;
  created_by: string | null;
  created_at: Date;
  completed_at: Date | null;
}

export type CheckoutStatus = "open" | "completed" | "superseded" | "expired";

export interface CheckoutRow {
  id: string;
  team_id: string;
  project_id: string;
  member_id: string;
  plan_id: string;
  payment_method_id: string | null;
  provider: string;
  provider_checkout_id: string | null;
  /** Stripe: the connected account the Checkout Session was made on; Telegram Stars: the installation that sold it. */
  provider_account: string | null;
  /** The plan's price per period when the checkout opened: what each renewal charges (bigint: a string from pg). */
  price_minor: number | string;
  /** What the first payment must be: the price less the coupon (0 for a 100% coupon); nothing is charged during a trial. */
  amount_minor: number | string;
  currency: string;
  /** The trial offered: the plan's, or 0 for a member who has had one in the project. */
  trial_days: number;
  /** Whether a subscription pays it (every plan but a lifetime one). */
  recurring: boolean;
  status: CheckoutStatus;
  subscription_id: string | null;
  /** The coupon the member typed, validated when the checkout opened; its redemption counts on completion. */
  coupon_id: string | null;
  /** The pass window whose seat it holds (pass-windows/seats.ts); null for a plan without windows. */
  pass_window_id?: string | null;
  created_at: Date;
  completed_at: Date | null;
}
