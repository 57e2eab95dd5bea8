// The webhooks area's tenant tables. An endpoint belongs to its team, and to one project when it
// receives that project's events only (a team-wide endpoint is hidden from restricted tokens).
import { tenantTable } from "../../db/tenant.ts";

export const webhookEndpointsTable = tenantTable("webhook_endpoints", { team: "team_id", project: "project_id" });
export const webhookDeliveriesTable = tenantTable("webhook_deliveries", { team: "team_id", project: "project_id" });
export const webhookDeliveryAttemptsTable = tenantTable("webhook_delivery_attempts", { team: "team_id", project: "project_id" });

export interface WebhookDeliveryAttemptRow {
  delivery_id: string;
  attempt: number;
  attempted_at: Date;
  outcome: "delivered" | "failed" | "refused";
  response_status: number | null;
  duration_ms: number | null;
  excerpt: string;
}

export interface WebhookEndpointRow {
  id: string;
  team_id: string;
  project_id: string | null;
  created_by_user_id: string;
  name: string;
  url: string;
  events: string[];
  allowed_ips: string[] | null;
  secret_sealed: string;
  is_active: boolean;
  disabled_at: Date | null;
  consecutive_failures: number;
  created_at: Date;
  updated_at: Date;
}

export type WebhookDeliveryStatus = "queued" | "delivered" | "dead";

export interface WebhookDeliveryRow {
  id: string;
  team_id: string;
  endpoint_id: string;
  project_id: string | null;
  event_id: string;
  event_type: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  delivered_at: Date | null;
  response_status: number | null;
  response_excerpt: string | null;
  duration_ms: number | null;
  created_at: Date;
  updated_at: Date;
}
