// Responses kept for Idempotency-Key replays (src/pipeline/idempotency.ts). A row is written
// by the transaction of the write it answers, so a committed write always has its kept response
// and a rolled-back one never does: a repeat can neither run a committed write twice (a process
// that stopped between COMMIT and keeping the response elsewhere) nor replay one that never was.
// record_key is the SHA-256 of the record's key (credential, method, path, Idempotency-Key); the
// body is encrypted with APP_KEY and bound to that key. Kept 24 hours (idempotency.purge-expired).
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("idempotency_records", (t) => {
    t.text("record_key").primary(); // SHA-256 of the record key
    t.text("request_hash").notNullable(); // SHA-256 of the raw body answered
    t.smallint("status").notNullable();
    t.text("body").notNullable(); // encrypted JSON
    t.timestamp("created_at", { useTz: true }).notNullable();
  });
  // Rows arrive in time order: a BRIN index finds the expired ones for almost no cost per write.
  await knex.raw("create index idempotency_records_created_at_brin on idempotency_records using brin (created_at)");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("idempotency_records");
}
