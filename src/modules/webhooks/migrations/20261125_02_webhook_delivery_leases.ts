// Workers share deliveries through PostgreSQL: a worker claims due queued deliveries with FOR UPDATE
// SKIP LOCKED and leases them (lease_expires_at) while it posts outside any transaction; a worker
// killed mid-delivery leaves a lease that runs out, and the delivery is claimed again.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("webhook_deliveries", (t) => {
    t.timestamp("lease_expires_at", { useTz: true }).nullable();
    // Which claim holds the lease: a worker records its outcome only while its claim still holds
    // (a worker that outlived its lease cannot overwrite the next worker's outcome).
    t.uuid("claim_id").nullable();
  });
  // What workers claim: queued deliveries by due time (delivered and dead rows never in the way).
  await knex.raw("drop index if exists webhook_deliveries_status_next_attempt_at_index");
  await knex.raw("create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'queued'");
  // The fan-out looks up a team's active endpoints for every event.
  await knex.raw("create index webhook_endpoints_active on webhook_endpoints (team_id) where is_active");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("drop index if exists webhook_endpoints_active");
  await knex.raw("drop index if exists webhook_deliveries_due");
  await knex.raw("create index webhook_deliveries_status_next_attempt_at_index on webhook_deliveries (status, next_attempt_at)");
  await knex.schema.alterTable("webhook_deliveries", (t) => {
    t.dropColumn("lease_expires_at");
    t.dropColumn("claim_id");
  });
}
