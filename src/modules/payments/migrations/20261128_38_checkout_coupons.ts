// A member's checkout remembers the coupon it was started with (issue 33: our coupons are the source
// of truth), so the completed checkout counts that coupon's redemption once.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("payment_checkouts", (t) => {
    // A deleted coupon leaves the checkout (and the discount the provider already gave) as it was.
    t.uuid("coupon_id").nullable().references("coupons.id").onDelete("SET NULL");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("payment_checkouts", (t) => {
    t.dropColumn("coupon_id");
  });
}
