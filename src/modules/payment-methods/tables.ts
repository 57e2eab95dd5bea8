// The payment-methods area's tenant tables.
import { tenantTable } from "../../db/tenant.ts";

export const paymentMethodsTable = tenantTable("payment_methods", { team: "team_id", project: "project_id" });

export interface PaymentMethodRow {
  id: string;
  team_id: string;
  project_id: string;
  provider: string;
  name: string;
  mode: "live" | "test";
  enabled: boolean;
  currencies: string[];
  billing_cycles: string[];
  credentials: string | null;
  created_at: Date;
  updated_at: Date;
}
