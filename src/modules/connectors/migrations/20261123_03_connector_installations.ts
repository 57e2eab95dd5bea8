// A project's connector installations: at most one per connector on a project (two distinct
// connectors on one project need Growth). Credentials are sealed with APP_KEY (never stored plain).
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("connector_installations", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    t.text("connector_key").notNullable();
    t.text("status").notNullable().defaultTo("active");
    // The installation's account on the platform (a Telegram bot, a Discord application in a guild).
    t.text("platform_account_id").nullable();
    t.text("platform_account_name").nullable();
    // Where members open the installation (the bot URL of a deep link), when the platform has one.
    t.text("bot_url").nullable();
    // encrypt(APP_KEY, JSON of the install fields, bound to the installation id); null when none.
    t.text("credentials").nullable();
    t.jsonb("settings").notNullable().defaultTo("{}");
    t.uuid("created_by_user_id").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.unique(["project_id", "connector_key"]);
    t.index(["team_id", "project_id", "created_at"]);
  });
  // A bot answers one installation (its platform sends updates to one address), whatever team.
  await knex.raw(
    "create unique index connector_installations_one_bot on connector_installations (connector_key, platform_account_id) where bot_url is not null",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("connector_installations");
}
