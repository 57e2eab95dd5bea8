// A project's payment methods: configuration records (no provider is called in this release).
// What each supports (currencies, billing cycles) decides which plans can be published.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("payment_methods", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    t.text("provider").notNullable();
    t.text("name").notNullable();
    t.text("mode").notNullable().defaultTo("live").checkIn(["live", "test"], "payment_methods_mode_check");
    t.boolean("enabled").notNullable().defaultTo(true);
    // ISO 4217 codes (upper case) and billing cycles (day, week, month, year, lifetime) it supports.
    t.jsonb("currencies").notNullable();
    t.jsonb("billing_cycles").notNullable();
    // encrypt(APP_KEY, JSON of the provider credentials, bound to the method id); never returned.
    t.text("credentials").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.index(["team_id", "project_id", "created_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("payment_methods");
}
