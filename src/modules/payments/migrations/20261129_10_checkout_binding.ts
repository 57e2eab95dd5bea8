// A checkout remembers what it was sold as (issue 43): the provider account it was opened on, the
// amount and currency its first payment must be, the plan's price that renewals charge, the trial
// it was offered and whether a subscription pays it. A provider's report that does not match is kept
// in the inbox as mismatched with its reason, and what it took is owed back from the account that
// received it (a refund owed with no checkout of that team, named by the report instead).
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("payment_checkouts", (t) => {
    // Stripe: the connected account the Checkout Session was made on; Telegram Stars: the installation that sold it.
    t.text("provider_account").nullable();
    t.bigInteger("price_minor").nullable();
    t.bigInteger("amount_minor").nullable();
    t.text("currency").nullable();
    t.integer("trial_days").notNullable().defaultTo(0);
    t.boolean("recurring").nullable();
  });
  // Checkouts opened before: the plan's terms and coupon as the checkout was started with them.
  await knex.raw(`
    update payment_checkouts c set
      price_minor = p.amount_minor,
      currency = p.currency,
      trial_days = p.trial_days,
      recurring = p.billing_cycle <> 'lifetime',
      amount_minor = p.amount_minor - coalesce(
        (select case when k.percent_off is not null then round(p.amount_minor * k.percent_off / 100.0)::bigint
                     else least(p.amount_minor, k.amount_off_minor) end
           from coupons k where k.id = c.coupon_id), 0)
    from plans p where p.id = c.plan_id`);
  await knex.raw(`
    update payment_checkouts c set provider_account = pc.account
    from payment_connections pc
    where c.provider = 'stripe' and pc.provider = 'stripe' and pc.payment_method_id = c.payment_method_id and pc.account is not null`);
  await knex.raw(`
    update payment_checkouts c set provider_account = i.id::text
    from connector_installations i
    where c.provider = 'telegram_stars' and i.project_id = c.project_id and i.connector_key = 'telegram' and i.status = 'active'`);
  await knex.schema.alterTable("payment_checkouts", (t) => {
    t.bigInteger("price_minor").notNullable().alter();
    t.bigInteger("amount_minor").notNullable().alter();
    t.text("currency").notNullable().alter();
    t.boolean("recurring").notNullable().alter();
  });
  // A coupon's open checkouts hold its remaining uses (coupons/checkout.ts).
  await knex.raw("create index payment_checkouts_open_coupon on payment_checkouts (coupon_id) where status = 'open' and coupon_id is not null");

  await knex.schema.alterTable("payment_provider_events", (t) => {
    // What applying it did (applied, ignored, superseded, mismatched, unhandled) and why, for the operator.
    t.text("outcome").nullable();
    t.text("reason").nullable();
  });

  await knex.schema.alterTable("payment_refunds_owed", (t) => {
    t.dropUnique(["checkout_id"]);
  });
  await knex.schema.alterTable("payment_refunds_owed", (t) => {
    t.uuid("checkout_id").nullable().alter();
    // Null when nothing was charged (a trial): then only the provider's subscription is ended.
    t.text("provider_payment_id").nullable().alter();
    // A mismatched report's subscription at the provider, cancelled so it charges nothing more.
    t.text("provider_subscription_id").nullable();
    // superseded: paid while the member's subscription was live; mismatched: a report that did not match what it named.
    t.text("reason").notNullable().defaultTo("superseded").checkIn(["superseded", "mismatched"], "payment_refunds_owed_reason_check");
    // The provider report a mismatched refund answers.
    t.text("event_id").nullable();
    // A payment is given back once, whatever named it.
    t.unique(["provider", "provider_payment_id"], { indexName: "payment_refunds_owed_payment" });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("payment_refunds_owed", (t) => {
    t.dropUnique(["provider", "provider_payment_id"], "payment_refunds_owed_payment");
    t.dropChecks(["payment_refunds_owed_reason_check"]);
    t.dropColumn("event_id");
    t.dropColumn("reason");
    t.dropColumn("provider_subscription_id");
  });
  await knex.raw("delete from payment_refunds_owed where checkout_id is null or provider_payment_id is null");
  await knex.schema.alterTable("payment_refunds_owed", (t) => {
    t.uuid("checkout_id").notNullable().alter();
    t.text("provider_payment_id").notNullable().alter();
    t.unique(["checkout_id"]);
  });
  await knex.schema.alterTable("payment_provider_events", (t) => {
    t.dropColumn("reason");
    t.dropColumn("outcome");
  });
  await knex.raw("drop index if exists payment_checkouts_open_coupon");
  await knex.schema.alterTable("payment_checkouts", (t) => {
    t.dropColumn("recurring");
    t.dropColumn("trial_days");
    t.dropColumn("currency");
    t.dropColumn("amount_minor");
    t.dropColumn("price_minor");
    t.dropColumn("provider_account");
  });
}
