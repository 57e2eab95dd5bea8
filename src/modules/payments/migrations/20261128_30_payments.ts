// Payments (issue 33): a member's checkout of a plan through a provider, the inbox of provider
// events (each stored once by its provider id before it is acted on), and a subscription's link to
// the provider's own subscription.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("payment_checkouts", (t) => {
    // Also the reference the provider echoes back (client_reference_id, invoice_payload).
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    t.uuid("member_id").notNullable().references("members.id").onDelete("CASCADE");
    t.uuid("plan_id").notNullable().references("plans.id").onDelete("CASCADE");
    t.uuid("payment_method_id").nullable().references("payment_methods.id").onDelete("SET NULL");
    t.text("provider").notNullable();
    t.text("provider_checkout_id").nullable();
    // open -> completed (a subscription started) | superseded (paid while another was live: refunded) | expired
    t.text("status").notNullable().defaultTo("open").checkIn(["open", "completed", "superseded", "expired"], "payment_checkouts_status_check");
    t.uuid("subscription_id").nullable().references("subscriptions.id").onDelete("SET NULL");
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("completed_at", { useTz: true }).nullable();
    t.index(["team_id", "project_id", "member_id", "status"]);
    t.index(["status", "created_at"]);
  });
  await knex.raw(
    "create unique index payment_checkouts_provider_id on payment_checkouts (provider, provider_checkout_id) where provider_checkout_id is not null",
  );
  await knex.schema.createTable("payment_provider_events", (t) => {
    t.text("provider").notNullable();
    t.text("event_id").notNullable();
    t.text("kind").notNullable();
    // Known once the event is matched to one of our checkouts or subscriptions.
    t.uuid("team_id").nullable().references("teams.id").onDelete("CASCADE");
    t.timestamp("received_at", { useTz: true }).notNullable();
    t.primary(["provider", "event_id"]);
    t.index(["received_at"]);
  });
  await knex.schema.alterTable("subscriptions", (t) => {
    t.text("provider").nullable();
    t.text("provider_subscription_id").nullable();
    t.uuid("payment_method_id").nullable().references("payment_methods.id").onDelete("SET NULL");
  });
  await knex.raw(
    "create unique index subscriptions_provider_id on subscriptions (provider, provider_subscription_id) where provider_subscription_id is not null",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("drop index if exists subscriptions_provider_id");
  await knex.schema.alterTable("subscriptions", (t) => {
    t.dropColumn("payment_method_id");
    t.dropColumn("provider_subscription_id");
    t.dropColumn("provider");
  });
  await knex.schema.dropTable("payment_provider_events");
  await knex.schema.dropTable("payment_checkouts");
}
