// Who decided a mass-removal hold (removal-holds.ts): the API shows the creator who confirmed or
// cancelled it, as a completed creator task shows who completed it.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("connector_removal_holds", (t) => {
    t.uuid("decided_by_user_id").nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("connector_removal_holds", (t) => {
    t.dropColumn("decided_by_user_id");
  });
}
