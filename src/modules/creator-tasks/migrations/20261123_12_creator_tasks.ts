// Creator tasks: one per grant of mode creator_task (a manual perk the creator hands over). The task
// is open while the grant is pending, completed once the creator completes it, void when the grant
// was revoked first (the purchase ended or the member was banned).
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("creator_tasks", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    t.uuid("grant_id").notNullable().unique().references("access_grants.id").onDelete("CASCADE");
    t.uuid("subscription_id").notNullable().references("subscriptions.id").onDelete("CASCADE");
    t.uuid("member_id").notNullable().references("members.id").onDelete("CASCADE");
    t.uuid("resource_id").notNullable().references("resources.id").onDelete("CASCADE");
    t.text("instructions").notNullable();
    t.timestamp("due_at", { useTz: true }).nullable();
    t.text("status").notNullable().defaultTo("open").checkIn(["open", "completed", "void"], "creator_tasks_status_check");
    t.timestamp("completed_at", { useTz: true }).nullable();
    t.uuid("completed_by_user_id").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.index(["team_id", "project_id", "status", "created_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("creator_tasks");
}
