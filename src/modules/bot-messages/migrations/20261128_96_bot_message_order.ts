// The order bot messages were queued in (ids are random and several share a created_at): the
// worker claims and paces them in this order, so a burst reaches people as it was written.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.raw("alter table bot_messages add column if not exists seq bigserial");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("alter table bot_messages drop column if exists seq");
}
