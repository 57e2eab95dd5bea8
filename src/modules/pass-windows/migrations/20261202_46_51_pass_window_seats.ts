// A plan with pass windows is bought for one window (issue 46): the checkout names the window whose
// seat it holds, and the subscription it starts names it too, with when its plan's grants are
// issued (the window's start; null once issued) so a pass bought early grants nothing before then.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  // No cascade: a window someone started to buy stays (deletePassWindow refuses); deleting its plan removes both in one statement.
  await knex.schema.alterTable("payment_checkouts", (t) => {
    t.uuid("pass_window_id").nullable().references("pass_windows.id");
    t.index(["pass_window_id", "status"]);
  });
  await knex.schema.alterTable("subscriptions", (t) => {
    t.uuid("pass_window_id").nullable().references("pass_windows.id");
    t.timestamp("grants_due_at", { useTz: true }).nullable();
    t.index(["grants_due_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("subscriptions", (t) => {
    t.dropColumn("grants_due_at");
    t.dropColumn("pass_window_id");
  });
  await knex.schema.alterTable("payment_checkouts", (t) => {
    t.dropColumn("pass_window_id");
  });
}
