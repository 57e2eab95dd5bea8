// The terms a member accepted in an installation's bot (its terms_url setting) before the bot made a
// Telegram Stars invoice: who, when and which address, so a changed address is accepted anew.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("connector_terms_acceptances", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    // An acceptance in a removed installation's bot is no one's record any more.
    t.uuid("installation_id").notNullable().references("connector_installations.id").onDelete("CASCADE");
    t.uuid("member_id").notNullable().references("members.id").onDelete("CASCADE");
    // The installation's terms_url when the member accepted it.
    t.text("terms_url").notNullable();
    t.timestamp("accepted_at", { useTz: true }).notNullable();
    t.unique(["installation_id", "member_id", "terms_url"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("connector_terms_acceptances");
}
