// Subscription plans and the resources each grants (in order), and the dated pass windows a plan
// can sell (a creator task's due_at is its window's start).
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("plans", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    t.text("name").notNullable();
    t.text("description").nullable();
    // Price in the currency's minor units (cents); ISO 4217 code, upper case.
    t.bigInteger("amount_minor").notNullable();
    t.text("currency").notNullable();
    t.text("billing_cycle").notNullable().checkIn(["day", "week", "month", "year", "lifetime"], "plans_billing_cycle_check");
    t.integer("billing_cycle_count").notNullable().defaultTo(1);
    t.integer("trial_days").notNullable().defaultTo(0);
    t.text("status").notNullable().defaultTo("draft").checkIn(["draft", "published", "archived"], "plans_status_check");
    // Hidden from the portal's plan list; reachable only through access codes.
    t.boolean("access_codes_only").notNullable().defaultTo(false);
    t.timestamp("published_at", { useTz: true }).nullable();
    t.timestamp("archived_at", { useTz: true }).nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.index(["team_id", "project_id", "created_at"]);
    // Plan names are unique within a project (checked first; this catches two creations at once).
    t.unique(["project_id", "name"], { indexName: "plans_project_name_unique" });
  });
  await knex.schema.createTable("plan_resources", (t) => {
    t.uuid("plan_id").notNullable().references("plans.id").onDelete("CASCADE");
    t.uuid("resource_id").notNullable().references("resources.id").onDelete("CASCADE");
    t.uuid("team_id").notNullable();
    t.uuid("project_id").notNullable();
    t.integer("position").notNullable();
    t.primary(["plan_id", "resource_id"]);
    t.index(["resource_id"]);
  });
  await knex.schema.createTable("pass_windows", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    t.uuid("plan_id").notNullable().references("plans.id").onDelete("CASCADE");
    t.text("name").notNullable();
    t.timestamp("starts_at", { useTz: true }).notNullable();
    t.timestamp("ends_at", { useTz: true }).notNullable();
    t.integer("capacity").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.index(["team_id", "project_id", "starts_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ["pass_windows", "plan_resources", "plans"]) await knex.schema.dropTableIfExists(table);
}
