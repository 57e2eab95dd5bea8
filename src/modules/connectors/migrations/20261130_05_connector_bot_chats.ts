// The chats an installation's bot administers, learned from the platform's updates (Telegram's
// my_chat_member: the bot made administrator of a group, supergroup or channel), so the dashboard's
// setup wizard offers a chat to gate instead of asking for its id. Telegram's Bot API has no call
// that lists a bot's chats: a row exists only for a change the bot was told of since its install.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("connector_bot_chats", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    // The chats of an uninstalled installation are no one's to offer.
    t.uuid("installation_id").notNullable().references("connector_installations.id").onDelete("CASCADE");
    // The bot that was told (a Telegram bot's id): a new bot token on the installation starts a new list.
    t.text("bot_account_id").notNullable();
    // The platform's chat id as resources name it in platform_ref (Telegram's numeric id as a string).
    t.text("chat_id").notNullable();
    t.text("title").notNullable();
    // group, supergroup or channel.
    t.text("type").notNullable();
    t.boolean("can_invite_users").notNullable();
    t.boolean("can_restrict_members").notNullable();
    // When the bot last became an administrator there.
    t.timestamp("added_at", { useTz: true }).notNullable();
    // The platform's date of the last change applied: an older change delivered late is ignored.
    t.timestamp("standing_at", { useTz: true }).notNullable();
    // Set when the bot was demoted, left or was removed; null while it administers the chat.
    t.timestamp("removed_at", { useTz: true }).nullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.unique(["installation_id", "chat_id"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("connector_bot_chats");
}
