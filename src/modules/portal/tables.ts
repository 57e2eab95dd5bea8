// The portal's sign-in tables (owned by the project's team, like its members).
import { tenantTable } from "../../db/tenant.ts";

export const portalHandoffsTable = tenantTable("portal_handoffs", { team: "team_id", project: "project_id" });
export const portalSessionsTable = tenantTable("portal_sessions", { team: "team_id", project: "project_id" });

export interface HandoffRow {
  id: string;
  team_id: string;
  project_id: string;
  installation_id: string;
  token_hash: string;
  token_sealed: string;
  browser_hash: string;
  /** The browser that asked, in a few words, shown to the person who confirms. */
  browser_summary: string;
  /** The member a bot's /start proposed; confirmed through the link it sent (confirm_hash). */
  proposed_member_id: string | null;
  confirm_hash: string | null;
  member_id: string | null;
  claimed_at: Date | null;
  completed_at: Date | null;
  /** Where a sign-in through the platform's OAuth returns to (a page of the project's portal), and the deep link's start payload. */
  return_to: string | null;
  start_payload: string | null;
  expires_at: Date;
  created_at: Date;
}

export interface PortalSessionRow {
  key_hash: string;
  team_id: string;
  project_id: string;
  member_id: string;
  expires_at: Date;
  created_at: Date;
}
