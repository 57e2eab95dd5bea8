// Creator alerts (rule 5): one row per alert per creator, written with its cause, recording where
// the routing sent it (the bot messages and the mail are queued beside it in the same transaction).
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("creator_alerts", (t) => {
    t.uuid("id").primary();
    t.uuid("user_id").notNullable().references("users.id").onDelete("CASCADE");
    // The team and project the alert is about (not an owner: the alert is the creator's); null for their own account.
    t.uuid("about_team_id").nullable().references("teams.id").onDelete("CASCADE");
    t.uuid("about_project_id").nullable();
    t.text("class").notNullable();
    t.text("title").notNullable();
    t.text("body").notNullable();
    // Names the alert: raising it again for the same creator is a no-op (producers that may run twice).
    t.text("dedupe_key").nullable();
    // Where it went: connected accounts ({connector, account_id}) and whether email got it.
    t.jsonb("sent_to_accounts").notNullable();
    t.boolean("sent_to_email").notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.unique(["user_id", "dedupe_key"]);
    t.index(["user_id", "created_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("creator_alerts");
}
