// Issue 45: what a member granted the platform's application on signing in through it (Discord's
// OAuth2 with guilds.join), sealed with APP_KEY, so that paying can add them to the server (Add
// Guild Member) after the browser has left. One per member; replaced on each sign-in and refresh.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("member_platform_grants", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable();
    t.uuid("member_id").notNullable().references("members.id").onDelete("CASCADE");
    t.text("connector_key").notNullable();
    // The MemberGrant as JSON, sealed and bound to the member's id.
    t.text("sealed").notNullable();
    t.timestamp("expires_at", { useTz: true }).notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.unique(["member_id"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("member_platform_grants");
}
