// A project's transactions: one movement of value for a member's subscription (an access-code
// redemption today; payments and refunds once a provider is called), amounts in minor units.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("transactions", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    t.uuid("member_id").notNullable().references("members.id").onDelete("CASCADE");
    t.uuid("subscription_id").nullable().references("subscriptions.id").onDelete("SET NULL");
    t.uuid("plan_id").nullable().references("plans.id").onDelete("SET NULL");
    t.text("kind").notNullable().checkIn(["access_code_redemption", "payment", "refund"], "transactions_kind_check");
    t.text("status").notNullable().checkIn(["pending", "succeeded", "failed", "refunded"], "transactions_status_check");
    t.bigInteger("amount_minor").notNullable();
    t.text("currency").notNullable();
    // The plan's price when it happened (what a redemption gave away); null without a plan.
    t.bigInteger("list_price_minor").nullable();
    t.bigInteger("fee_minor").notNullable().defaultTo(0);
    t.text("provider").notNullable();
    t.uuid("payment_method_id").nullable().references("payment_methods.id").onDelete("SET NULL");
    t.text("provider_reference").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    // The list and the tool's keyset read newest first; analytics sum a window of created_at.
    t.index(["team_id", "project_id", "created_at", "id"]);
    t.index(["plan_id"]);
  });
  await knex.raw("alter table transactions add constraint transactions_amounts_check check (amount_minor >= 0 and fee_minor >= 0)");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("transactions");
}
