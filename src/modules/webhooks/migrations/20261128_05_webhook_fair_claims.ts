// Fair claiming (src/modules/webhooks/delivery-queue.ts) reads each active endpoint's oldest due
// deliveries and counts the attempts in flight (leased deliveries) per endpoint and team at every
// claim: an index for each, so a claim stays cheap behind one team's backlog.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.raw("create index webhook_deliveries_endpoint_due on webhook_deliveries (endpoint_id, next_attempt_at) where status = 'queued'");
  // A lease is cleared when its outcome is recorded: only attempts in flight (or a dead worker's) are here.
  await knex.raw("create index webhook_deliveries_leased on webhook_deliveries (lease_expires_at) where lease_expires_at is not null");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("drop index if exists webhook_deliveries_leased");
  await knex.raw("drop index if exists webhook_deliveries_endpoint_due");
}
