// Issue 46, item 2: join requests. A place under an early admission hold gets join-request links
// (Telegram's creates_join_request), so the invite link rows say which kind they are; each
// chat_join_request update is remembered with the decision taken on it, so a repeated update is
// handled once and an approval or decline the platform did not take is tried again by the sweep.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("connector_invite_links", (t) => {
    t.boolean("creates_join_request").notNullable().defaultTo(false);
  });
  await knex.schema.createTable("connector_join_requests", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable();
    // No foreign key: the record of a decision outlives an uninstall.
    t.uuid("installation_id").notNullable();
    // Telegram's update_id: the same update delivered again is the same request.
    t.bigInteger("update_id").notNullable();
    t.text("place").notNullable();
    t.text("external_user_id").notNullable();
    // Where the bot may write to the requester (Telegram's user_chat_id), for a decline's message.
    t.text("user_chat_id").nullable();
    t.text("invite_link").nullable();
    // The requester's member of the project, when they are one.
    t.uuid("member_id").nullable();
    // approve (a covering grant) or decline (none), decided when the request arrived.
    t.text("decision").notNullable();
    // A decline's message to the requester (to the portal), sent before the decline; null once sent.
    t.text("notice").nullable();
    t.timestamp("requested_at", { useTz: true }).notNullable();
    // Set once the platform took the decision; null while it is still to be carried out.
    t.timestamp("decided_at", { useTz: true }).nullable();
    t.integer("attempts").notNullable().defaultTo(0);
    t.timestamp("retry_at", { useTz: true }).nullable();
    t.text("last_error").nullable();
    t.unique(["installation_id", "update_id"]);
  });
  await knex.raw("CREATE INDEX connector_join_requests_undecided ON connector_join_requests (requested_at) WHERE decided_at IS NULL");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("connector_join_requests");
  await knex.schema.alterTable("connector_invite_links", (t) => {
    t.dropColumn("creates_join_request");
  });
}
