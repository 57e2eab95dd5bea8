// Mass-removal holds (drift.ts): a drift sweep that would take a gated role from too many of its
// holders at once removes none and records the plan here for the creator to confirm or cancel.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("connector_removal_holds", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    t.uuid("installation_id").notNullable().references("connector_installations.id").onDelete("CASCADE");
    t.uuid("resource_id").notNullable().references("resources.id").onDelete("CASCADE");
    // The role on the platform when the hold was made (the resource's platform_ref then).
    t.text("place").notNullable();
    t.integer("holders").notNullable();
    t.integer("planned_count").notNullable();
    // The platform user ids the sweep would have taken the role from.
    t.jsonb("member_ids").notNullable();
    // held: waiting for the creator; confirmed: the next sweep removes those still uncovered; cancelled: nothing removed.
    t.text("status").notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("decided_at", { useTz: true }).nullable();
    // When a confirmed hold's removals were carried out.
    t.timestamp("applied_at", { useTz: true }).nullable();
    t.index(["installation_id", "resource_id", "status"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("connector_removal_holds");
}
