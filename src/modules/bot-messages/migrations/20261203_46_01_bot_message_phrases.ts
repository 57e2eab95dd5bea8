// A message's translatable lines (bot-messages/phrases.ts), translated when it is sent; `text`
// keeps the English rendering as the record.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("bot_messages", (t) => {
    t.jsonb("phrases").nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("bot_messages", (t) => {
    t.dropColumn("phrases");
  });
}
