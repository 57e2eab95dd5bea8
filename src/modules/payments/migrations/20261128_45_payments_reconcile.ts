// Reconciliation with the providers (issue 33): where each provider account's event history was
// last read up to (a cursor per account, so a run reads only what is new), and the refunds owed to
// members for payments made while another subscription was live, kept until the provider confirms.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("payment_reconcile_cursors", (t) => {
    t.text("provider").notNullable();
    // Stripe: the connected account (acct_…); Telegram Stars: the installation id.
    t.text("account").notNullable();
    // Stripe: events created at or after this instant are read next (the inbox makes a repeat a no-op).
    t.timestamp("read_from", { useTz: true }).nullable();
    // Telegram Stars: how many of the bot's ledger transactions (oldest first) were read.
    t.integer("ledger_offset").notNullable().defaultTo(0);
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.primary(["provider", "account"]);
  });
  await knex.schema.createTable("payment_refunds_owed", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    // The superseded checkout whose payment is owed back: one refund per checkout.
    t.uuid("checkout_id").notNullable().unique().references("payment_checkouts.id").onDelete("CASCADE");
    t.uuid("payment_method_id").nullable().references("payment_methods.id").onDelete("SET NULL");
    t.text("provider").notNullable();
    t.text("provider_payment_id").notNullable();
    t.bigInteger("amount_minor").notNullable();
    t.text("currency").notNullable();
    // owed -> refunded (the provider confirmed, or said it was refunded already)
    t.text("status").notNullable().defaultTo("owed").checkIn(["owed", "refunded"], "payment_refunds_owed_status_check");
    t.integer("attempts").notNullable().defaultTo(0);
    t.timestamp("next_attempt_at", { useTz: true }).notNullable();
    t.text("last_error").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("refunded_at", { useTz: true }).nullable();
    t.index(["status", "next_attempt_at"]);
    t.index(["provider", "provider_payment_id"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("payment_refunds_owed");
  await knex.schema.dropTable("payment_reconcile_cursors");
}
