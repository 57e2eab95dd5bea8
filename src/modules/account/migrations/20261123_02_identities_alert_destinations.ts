// A creator's linked identities (accounts on connector platforms) and where their alerts go.
// Both belong to the person, not to a team.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("identities", (t) => {
    t.uuid("id").primary();
    t.uuid("user_id").notNullable().references("users.id").onDelete("CASCADE");
    t.text("connector").notNullable();
    t.text("account_id").notNullable();
    t.text("display_name").nullable();
    t.boolean("is_primary").notNullable().defaultTo(false);
    t.timestamp("linked_at", { useTz: true }).notNullable();
    // One platform account links to one creator.
    t.unique(["connector", "account_id"]);
    t.index(["user_id", "linked_at"]);
  });
  await knex.raw("create unique index identities_one_primary on identities (user_id) where is_primary");
  await knex.schema.createTable("alert_destinations", (t) => {
    t.uuid("id").primary();
    t.uuid("user_id").notNullable().references("users.id").onDelete("CASCADE");
    t.text("kind").notNullable().checkIn(["connector_identity", "email", "push_device"], "alert_destinations_kind_check");
    t.text("target").notNullable();
    // Null = every class; [] = none (kept, receives nothing).
    t.jsonb("classes").nullable();
    t.integer("position").notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.index(["user_id", "position"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("alert_destinations");
  await knex.schema.dropTableIfExists("identities");
}
