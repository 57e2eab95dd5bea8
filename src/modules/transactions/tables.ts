// The transactions area's tenant table.
import { tenantTable } from "../../db/tenant.ts";

export const transactionsTable = tenantTable("transactions", { team: "team_id", project: "project_id" });

export type TransactionKind = "access_code_redemption" | "payment" | "refund" | "dispute";
export type TransactionStatus = "pending" | "succeeded" | "failed" | "refunded";

export interface TransactionRow {
  id: string;
  team_id: string;
  project_id: string;
  member_id: string;
  subscription_id: string | null;
  plan_id: string | null;
  kind: TransactionKind;
  status: TransactionStatus;
  /** bigint columns: pg returns them as strings. */
  amount_minor: string | number;
  currency: string;
  list_price_minor: string | number | null;
  fee_minor: string | number;
  provider: string;
  payment_method_id: string | null;
  provider_reference: string | null;
  /** A refund or a dispute: the payment it gives (or would give) money back for. */
  refunded_transaction_id?: string | null;
  created_at: Date;
}
