// A refund names the payment it gives money back for, so the refunds of one payment can be added up
// (a payment refunded in parts is refunded once they cover it).
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("transactions", (t) => {
    t.uuid("refunded_transaction_id").nullable().references("transactions.id").onDelete("SET NULL");
    t.index(["refunded_transaction_id"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("transactions", (t) => {
    t.dropColumn("refunded_transaction_id");
  });
}
