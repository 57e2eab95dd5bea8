// The creators' own tier billing (issue 33, item 5): per user (the tier is the owner's, not a
// team's), the Stripe customer made for them on the platform account and what their tier
// subscription was last read as. Provider events are de-duplicated in payment_provider_events
// under the provider name "stripe_billing".
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("creator_billing", (t) => {
    t.uuid("user_id").primary().references("users.id").onDelete("CASCADE");
    t.text("stripe_customer_id").notNullable().unique();
    t.text("stripe_subscription_id").nullable();
    // Stripe's status as last read (active, trialing, past_due, canceled, ...); null before any subscription.
    t.text("subscription_status").nullable();
    // The paid tier the subscription's price stands for.
    t.text("subscribed_tier").nullable().checkIn(["starter", "growth"], "creator_billing_tier_check");
    t.timestamp("current_period_end", { useTz: true }).nullable();
    t.boolean("cancel_at_period_end").notNullable().defaultTo(false);
    // Set when a renewal failed: the tier is kept until then, then falls back to Free.
    t.timestamp("grace_ends_at", { useTz: true }).nullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.index(["subscription_status", "grace_ends_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("creator_billing");
}
