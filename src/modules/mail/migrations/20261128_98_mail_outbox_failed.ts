// Failed rows (given up: the message never reached its person) counted at every metrics scrape,
// through their own partial index rather than a scan of every message ever sent.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.raw("create index mail_outbox_failed on mail_outbox (created_at) where status = 'failed'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("drop index if exists mail_outbox_failed");
}
