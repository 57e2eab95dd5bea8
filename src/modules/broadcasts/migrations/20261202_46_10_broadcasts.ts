// Broadcasts (issue 46): a creator's message to a segment of a project's members, its recipients
// snapshotted when the send starts (one row each, following their bot message's outcome), and a
// member's opt-out of broadcasts (the bot's /stop), which keeps them a recipient that is sent nothing.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("broadcasts", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    t.text("text").notNullable();
    t.text("image_url").nullable();
    // Rows of {label, target}.
    t.jsonb("buttons").notNullable();
    // {plan_ids, subscription_statuses, connectors, joined_after, joined_before}, the default connectors filled in.
    t.jsonb("segment").notNullable();
    t.boolean("test").notNullable().defaultTo(false);
    // scheduled, started (recipients snapshotted and queued), canceled.
    t.text("status").notNullable();
    t.timestamp("send_at", { useTz: true }).notNullable();
    t.timestamp("started_at", { useTz: true }).nullable();
    t.timestamp("canceled_at", { useTz: true }).nullable();
    t.uuid("created_by_user_id").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.index(["team_id", "project_id", "created_at"]);
  });
  await knex.raw("create index broadcasts_due on broadcasts (send_at) where status = 'scheduled'");
  await knex.schema.createTable("broadcast_recipients", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable();
    t.uuid("broadcast_id").notNullable().references("broadcasts.id").onDelete("CASCADE");
    // Null on a test send (the creator's own identity).
    t.uuid("member_id").nullable();
    t.text("connector_key").notNullable();
    t.text("platform_user_id").notNullable();
    // queued, sent, blocked, failed, opted_out.
    t.text("status").notNullable();
    t.uuid("bot_message_id").nullable();
    t.text("error").nullable();
    t.timestamp("sent_at", { useTz: true }).nullable();
    // The snapshot's order (the list's), which is also the order the messages were queued in.
    t.integer("position").notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.unique(["broadcast_id", "connector_key", "platform_user_id"]);
    t.index(["broadcast_id", "position"]);
    t.index(["bot_message_id"]);
  });
  await knex.schema.alterTable("members", (t) => {
    t.timestamp("broadcasts_opted_out_at", { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("members", (t) => {
    t.dropColumn("broadcasts_opted_out_at");
  });
  await knex.schema.dropTableIfExists("broadcast_recipients");
  await knex.schema.dropTableIfExists("broadcasts");
}
