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
  created_at: Date;
  updated_at: Date;
}
