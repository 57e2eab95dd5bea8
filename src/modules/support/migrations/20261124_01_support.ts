// The Support area: members' conversations with a project's team (relayed by a connector), their
// messages, and the team's canned replies.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("support_conversations", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    t.uuid("member_id").notNullable().references("members.id").onDelete("CASCADE");
    // The installation that relays it; kept (null) when the installation is removed.
    t.uuid("installation_id").nullable().references("connector_installations.id").onDelete("SET NULL");
    t.text("connector_key").notNullable();
    t.text("subject").notNullable();
    t.text("status").notNullable();
    // A person of the team's roster (owner or member); null when nobody is assigned.
    t.uuid("assignee_id").nullable().references("users.id").onDelete("SET NULL");
    t.integer("message_count").notNullable().defaultTo(0);
    t.text("last_message_preview").notNullable();
    t.text("last_message_direction").notNullable();
    t.timestamp("last_message_at", { useTz: true }).notNullable();
    t.timestamp("closed_at", { useTz: true }).nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.index(["team_id", "project_id", "created_at"]);
    t.index(["project_id", "last_message_at"]);
    t.index(["project_id", "member_id"]);
  });
  await knex.raw("alter table support_conversations add constraint support_conversations_status check (status in ('open', 'closed'))");
  await knex.raw("alter table support_conversations add constraint support_conversations_direction check (last_message_direction in ('in', 'out'))");
  // At most one open conversation per member and project: a member's message joins it.
  await knex.raw("create unique index support_conversations_one_open on support_conversations (project_id, member_id) where status = 'open'");

  await knex.schema.createTable("support_messages", (t) => {
    t.uuid("id").primary();
    t.bigIncrements("seq", { primaryKey: false });
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    t.uuid("conversation_id").notNullable().references("support_conversations.id").onDelete("CASCADE");
    t.text("direction").notNullable();
    t.text("body").notNullable();
    t.uuid("author_user_id").nullable().references("users.id").onDelete("SET NULL");
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.index(["conversation_id", "created_at", "seq"]);
  });
  await knex.raw("alter table support_messages add constraint support_messages_direction check (direction in ('in', 'out'))");

  await knex.schema.createTable("support_canned_replies", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    t.text("title").notNullable();
    t.text("body").notNullable();
    t.uuid("created_by_user_id").nullable().references("users.id").onDelete("SET NULL");
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.index(["team_id", "project_id", "created_at"]);
  });
  // A title is unique within the project regardless of case.
  await knex.raw("create unique index support_canned_replies_title on support_canned_replies (project_id, lower(title))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("support_canned_replies");
  await knex.schema.dropTableIfExists("support_messages");
  await knex.schema.dropTableIfExists("support_conversations");
}
