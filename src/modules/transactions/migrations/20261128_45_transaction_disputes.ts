// A dispute is its own transaction row (issue 33): kind dispute, naming the disputed payment
// (refunded_transaction_id), pending while open, succeeded when lost (the money went back), failed when won.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.raw("alter table transactions drop constraint transactions_kind_check");
  await knex.raw(
    "alter table transactions add constraint transactions_kind_check check (kind in ('access_code_redemption', 'payment', 'refund', 'dispute'))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("delete from transactions where kind = 'dispute'");
  await knex.raw("alter table transactions drop constraint transactions_kind_check");
  await knex.raw("alter table transactions add constraint transactions_kind_check check (kind in ('access_code_redemption', 'payment', 'refund'))");
}
