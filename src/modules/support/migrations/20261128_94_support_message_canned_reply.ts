// A team's reply keeps the canned reply it was sent with; deleting that reply leaves the message.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("support_messages", (t) => {
    t.uuid("canned_reply_id").nullable().references("support_canned_replies.id").onDelete("SET NULL");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("support_messages", (t) => {
    t.dropColumn("canned_reply_id");
  });
}
