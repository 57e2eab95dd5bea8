// A project's connection to a payment provider while it is being made (issue 33): the creator's
// Stripe connected account between the start of onboarding and the moment it can take charges,
// when the project's Stripe payment method is created. One per project and provider, so a second
// connect reuses the account instead of opening another.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("payment_connections", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    t.text("provider").notNullable();
    // The connected account (acct_…): an identifier, not a credential (the platform's key is); read
    // by Stripe's account.updated, which names only the account. Null until Stripe answered.
    t.text("account").nullable();
    // What the method is created with: the currencies the creator chose on the connect form.
    t.jsonb("currencies").notNullable();
    // pending (onboarding not finished) -> completed (the method exists)
    t.text("status").notNullable().defaultTo("pending").checkIn(["pending", "completed"], "payment_connections_status_check");
    t.uuid("payment_method_id").nullable().references("payment_methods.id").onDelete("SET NULL");
    t.uuid("created_by").nullable().references("users.id").onDelete("SET NULL");
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("completed_at", { useTz: true }).nullable();
    t.unique(["project_id", "provider"]);
    t.index(["account"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("payment_connections");
}
