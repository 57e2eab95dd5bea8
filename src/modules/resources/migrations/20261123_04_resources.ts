// Gated resources of a project: places on a platform (a channel, a role) or manual perks. The kind
// comes from an installed connector's manifest (resource_kinds); its grant mode is copied at
// creation so the access ledger never needs the manifest to fulfil an old grant.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("resources", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    t.uuid("installation_id").nullable().references("connector_installations.id").onDelete("SET NULL");
    t.text("connector_key").notNullable();
    t.text("kind").notNullable();
    t.text("grant_mode").notNullable().checkIn(["bearer_link", "membership", "role", "creator_task"], "resources_grant_mode_check");
    t.text("title").notNullable();
    t.text("description").nullable();
    // The place on the platform (chat id, channel id, role id); null for a manual perk.
    t.text("platform_ref").nullable();
    t.boolean("early_admission_hold").notNullable().defaultTo(false);
    t.boolean("active").notNullable().defaultTo(true);
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.index(["team_id", "project_id", "created_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("resources");
}
