// The subscriber portal's member sign-in: single-use handoffs a connector bot confirms
// (`/start auth_<token>`), and the sessions they open (one per browser per project).
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("portal_handoffs", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    // The installation whose bot must confirm it (the link points at that bot).
    t.uuid("installation_id").notNullable().references("connector_installations.id").onDelete("CASCADE");
    // SHA-256 of the token in the start link; the token itself sealed with APP_KEY, so the page
    // that shows the link can be shown again to the browser that started it.
    t.text("token_hash").notNullable().unique();
    t.text("token_sealed").notNullable();
    // SHA-256 of the browser key in the portal's cookie: only that browser can finish the sign-in.
    t.text("browser_hash").notNullable();
    t.uuid("member_id").nullable().references("members.id").onDelete("CASCADE");
    t.timestamp("claimed_at", { useTz: true }).nullable();
    t.timestamp("completed_at", { useTz: true }).nullable();
    t.timestamp("expires_at", { useTz: true }).notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.index(["team_id", "project_id"]);
  });
  await knex.schema.createTable("portal_sessions", (t) => {
    // SHA-256 of the browser key (the cookie); a browser holds one session per project.
    t.text("key_hash").notNullable();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    t.uuid("member_id").notNullable().references("members.id").onDelete("CASCADE");
    t.timestamp("expires_at", { useTz: true }).notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.primary(["key_hash", "project_id"]);
    t.index(["team_id", "project_id"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("portal_sessions");
  await knex.schema.dropTableIfExists("portal_handoffs");
}
