// The outbox becomes a send queue: workers claim due rows with FOR UPDATE SKIP LOCKED and lease
// them ("sending", lease_expires_at) while they talk SMTP outside any transaction. A worker that
// dies mid-send leaves a lease that runs out, and the message is claimed and sent again with the
// same Message-ID (fixed on the row at its first claim), so a receiver can drop the copy.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("mail_outbox", (t) => {
    // queued (waiting for its due time), sending (leased to a worker), sent, failed (permanent).
    t.text("status").notNullable().defaultTo("queued");
    t.integer("attempts").notNullable().defaultTo(0);
    t.timestamp("next_attempt_at", { useTz: true }).nullable();
    t.timestamp("lease_expires_at", { useTz: true }).nullable();
    // Which claim holds the lease: a worker that outlived its lease cannot overwrite the next one's outcome.
    t.uuid("claim_id").nullable();
    t.text("message_id").nullable();
    t.text("last_error").nullable();
  });
  await knex.raw("update mail_outbox set status = 'sent' where sent_at is not null");
  await knex.raw("update mail_outbox set next_attempt_at = created_at where next_attempt_at is null");
  await knex.raw("alter table mail_outbox alter column next_attempt_at set not null");
  // What workers claim: queued rows by due time, and leased ones whose lease may have run out.
  await knex.raw("create index mail_outbox_due on mail_outbox (next_attempt_at) where status = 'queued'");
  await knex.raw("create index mail_outbox_leased on mail_outbox (lease_expires_at) where status = 'sending'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("drop index if exists mail_outbox_leased");
  await knex.raw("drop index if exists mail_outbox_due");
  await knex.schema.alterTable("mail_outbox", (t) => {
    for (const column of ["status", "attempts", "next_attempt_at", "lease_expires_at", "claim_id", "message_id", "last_error"]) t.dropColumn(column);
  });
}
