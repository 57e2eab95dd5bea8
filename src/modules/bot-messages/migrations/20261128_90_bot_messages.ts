// Messages to people through a connector's bot, written in the transaction that decides to send
// them and sent by the bot message worker within the connector's pacing (src/workers/bot-messages).
// A producer that may run twice names the message (dedupe_key): the second write is a no-op.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("bot_messages", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable();
    t.uuid("installation_id").notNullable().references("connector_installations.id").onDelete("CASCADE");
    t.text("connector_key").notNullable();
    // The platform account (a Telegram user id, which is also their private chat) the bot writes to.
    t.text("recipient").notNullable();
    t.text("text").notNullable();
    // alert, support_reply, notice.
    t.text("purpose").notNullable();
    // What the message is about (an alert's id, a support message's id, a subscription's id).
    t.text("subject_type").nullable();
    t.uuid("subject_id").nullable();
    t.text("dedupe_key").nullable();
    // queued (waiting for its due time or its pacing slot), sending (leased), sent, failed (permanent).
    t.text("status").notNullable().defaultTo("queued");
    t.integer("attempts").notNullable().defaultTo(0);
    t.timestamp("next_attempt_at", { useTz: true }).notNullable();
    t.timestamp("lease_expires_at", { useTz: true }).nullable();
    t.uuid("claim_id").nullable();
    t.text("last_error").nullable();
    t.timestamp("sent_at", { useTz: true }).nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.unique(["team_id", "dedupe_key"]);
    t.index(["team_id", "project_id", "created_at"]);
  });
  await knex.raw("create index bot_messages_due on bot_messages (next_attempt_at) where status = 'queued'");
  await knex.raw("create index bot_messages_leased on bot_messages (lease_expires_at) where status = 'sending'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("bot_messages");
}
