// A project's recovery settings: one per connector installation (probes, a standby installation of
// the same connector elsewhere in the team, mirroring, identity relink), and the standby places
// that stand in for the installation's places. A resource or installation deleted elsewhere leaves
// the setting without it (SET NULL, or the pair dropped); the setting's own installation or project
// deleted takes the setting with it.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("recovery_settings", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    t.uuid("installation_id").notNullable().unique().references("connector_installations.id").onDelete("CASCADE");
    t.text("connector_key").notNullable();
    t.boolean("probes_enabled").notNullable().defaultTo(false);
    t.integer("probe_interval_minutes").notNullable();
    t.uuid("standby_installation_id").nullable().references("connector_installations.id").onDelete("SET NULL");
    t.boolean("mirror_enabled").notNullable().defaultTo(false);
    t.uuid("mirror_source_resource_id").nullable().references("resources.id").onDelete("SET NULL");
    t.uuid("mirror_target_resource_id").nullable().references("resources.id").onDelete("SET NULL");
    t.boolean("identity_relink_enabled").notNullable().defaultTo(false);
    // Set by probes (a later release): healthy, degraded or lost; null until one has run.
    t.text("status").nullable();
    t.timestamp("last_probe_at", { useTz: true }).nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.index(["team_id", "project_id", "created_at"]);
  });
  await knex.schema.createTable("recovery_resource_standbys", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    t.uuid("setting_id").notNullable().references("recovery_settings.id").onDelete("CASCADE");
    t.uuid("resource_id").notNullable().references("resources.id").onDelete("CASCADE");
    t.uuid("standby_resource_id").notNullable().references("resources.id").onDelete("CASCADE");
    // The pair's place in the list as the creator gave it.
    t.integer("position").notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.unique(["setting_id", "resource_id"]);
    t.index(["team_id", "project_id"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("recovery_resource_standbys");
  await knex.schema.dropTableIfExists("recovery_settings");
}
