// A platform task may set the bot's command menu (Telegram's setMyCommands, issue 46): for one
// person's private chat (chat_id: a linked creator's, with the commands their role grants) after
// they link their account. The menu for every private chat is set with the updates address.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("connector_platform_tasks", (t) => {
    // advertise_commands: the chat whose menu is set.
    t.text("chat_id").nullable();
    // advertise_commands: the menu, as Telegram's BotCommand list.
    t.jsonb("commands").nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("connector_platform_tasks", (t) => {
    t.dropColumn("chat_id");
    t.dropColumn("commands");
  });
}
