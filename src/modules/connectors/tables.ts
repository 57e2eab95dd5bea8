// The connectors area's tenant tables.
import { tenantTable } from "../../db/tenant.ts";

/** A project's connector installations (one per connector per project). */
export const installationsTable = tenantTable("connector_installations", { team: "team_id", project: "project_id" });

/** The invite links the sweep sent, and the joins the platforms reported (invite-links.ts). */
export const inviteLinksTable = tenantTable("connector_invite_links", { team: "team_id", project: "project_id" });
export const platformJoinsTable = tenantTable("connector_platform_joins", { team: "team_id", project: "project_id" });

/** The chats an installation's bot administers, learned from the platform's updates (bot-chats.ts). */
export const botChatsTable = tenantTable("connector_bot_chats", { team: "team_id", project: "project_id" });

export interface InstallationRow {
  id: string;
  team_id: string;
  project_id: string;
  connector_key: string;
  status: string;
  platform_account_id: string | null;
  platform_account_name: string | null;
  bot_url: string | null;
  credentials: string | null;
  settings: Record<string, unknown>;
  created_by_user_id: string | null;
  /** The standby installation whose bot sends for this one since its own stopped working (acting-installation.ts). */
  taken_over_by?: string | null;
  taken_over_at?: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** What members granted the platform's application on signing in through it (member-grants.ts). */
export const memberGrantsTable = tenantTable("member_platform_grants", { team: "team_id", project: "project_id" });

/** Mass removals a drift sweep held for the creator's decision (drift.ts). */
export const removalHoldsTable = tenantTable("connector_removal_holds", { team: "team_id", project: "project_id" });

export interface RemovalHoldRow {
  id: string;
  team_id: string;
  project_id: string;
  installation_id: string;
  resource_id: string;
  place: string;
  holders: number;
  planned_count: number;
  member_ids: string[];
  status: "held" | "confirmed" | "cancelled";
  created_at: Date;
  decided_at: Date | null;
  decided_by_user_id: string | null;
  applied_at: Date | null;
}

/** Which terms (terms_url) a member accepted in an installation's bot before a Stars checkout (bot/terms.ts). */
export const termsAcceptancesTable = tenantTable("connector_terms_acceptances", { team: "team_id", project: "project_id" });
