// A project's members (subscribers, "project users"): one row per person per project, found by
// the platform account the connector reports. Exactly one status at a time.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("members", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    // The platform account behind the member (connector key + the platform's user id).
    t.text("connector_key").nullable();
    t.text("external_user_id").nullable();
    t.text("display_name").nullable();
    t.text("email").nullable();
    t.text("status").notNullable().defaultTo("lead").checkIn(["lead", "trialing", "customer", "churned", "banned"], "members_status_check");
    t.text("ban_reason").nullable();
    t.timestamp("banned_at", { useTz: true }).nullable();
    // When the connector last applied the member's ban state on the platform; null = still to do
    // (after a ban: remove the member from every resource and revoke their links; after an
    // unban: lift the platform ban). The connector driver sets it.
    t.timestamp("platform_synced_at", { useTz: true }).nullable();
    t.timestamp("joined_at", { useTz: true }).nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.unique(["project_id", "connector_key", "external_user_id"]);
    t.index(["team_id", "project_id", "status", "created_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("members");
}
