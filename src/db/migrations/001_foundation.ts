// Accounts, teams, projects, personal access tokens and the activity log.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("users", (t) => {
    t.uuid("id").primary();
    t.text("email").notNullable().unique();
    t.text("password_hash").notNullable();
    t.text("tier").notNullable().checkIn(["free", "starter", "growth"], "users_tier_check");
    t.uuid("current_team_id").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
  });
  await knex.schema.createTable("teams", (t) => {
    t.uuid("id").primary();
    t.text("name").notNullable();
    t.uuid("owner_user_id").notNullable().references("users.id");
    t.boolean("personal").notNullable().defaultTo(false);
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.index(["owner_user_id"]);
  });
  await knex.schema.alterTable("users", (t) => {
    t.foreign("current_team_id").references("teams.id").onDelete("SET NULL");
  });
  await knex.schema.createTable("team_members", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("user_id").notNullable().references("users.id").onDelete("CASCADE");
    t.uuid("role_id").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.unique(["team_id", "user_id"]);
    t.index(["user_id"]);
  });
  await knex.schema.createTable("projects", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.text("name").notNullable();
    t.text("handle").notNullable().unique();
    t.text("description").nullable();
    t.boolean("active").notNullable().defaultTo(true);
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.index(["team_id", "created_at"]);
  });
  await knex.schema.createTable("personal_access_tokens", (t) => {
    t.bigIncrements("id").primary();
    t.uuid("user_id").notNullable().references("users.id").onDelete("CASCADE");
    // Null only for a token whose team scope was never set; such a token is refused (TENANT_MISMATCH).
    t.uuid("team_id").nullable().references("teams.id").onDelete("CASCADE");
    t.text("name").notNullable();
    t.text("kind").notNullable().defaultTo("personal").checkIn(["personal", "agent_registration"], "pat_kind_check");
    t.text("secret_hash").notNullable();
    t.jsonb("abilities").notNullable();
    // Null = every project of the team; otherwise the allow-list of project ids.
    t.jsonb("project_ids").nullable();
    t.timestamp("last_used_at", { useTz: true }).nullable();
    t.timestamp("expires_at", { useTz: true }).nullable();
    t.timestamp("revoked_at", { useTz: true }).nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.index(["user_id", "team_id"]);
  });
  await knex.schema.createTable("activity_log", (t) => {
    t.uuid("id").primary();
    // Ties on created_at (same millisecond) are ordered by insertion.
    t.bigIncrements("seq", { primaryKey: false });
    t.uuid("team_id").notNullable();
    t.uuid("project_id").nullable();
    t.text("log_name").notNullable().defaultTo("default");
    t.text("event").notNullable();
    t.text("description").notNullable();
    t.text("subject_type").notNullable();
    t.text("subject_id").notNullable();
    t.text("causer_type").nullable();
    t.text("causer_id").nullable();
    t.text("actor_kind").notNullable();
    t.text("credential_kind").nullable();
    t.jsonb("properties").notNullable();
    t.text("request_id").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.index(["team_id", "subject_type", "subject_id", "created_at", "seq"], "activity_subject_idx");
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ["activity_log", "personal_access_tokens", "projects", "team_members"]) await knex.schema.dropTableIfExists(table);
  await knex.schema.alterTable("users", (t) => t.dropForeign(["current_team_id"]));
  await knex.schema.dropTableIfExists("teams");
  await knex.schema.dropTableIfExists("users");
}
