// Which version of the bot's platform setup an installation last received (platform-tasks.ts,
// PLATFORM_SETUP_VERSION): a release that asks bots for more (issue 46: Telegram's chat_join_request
// updates and the members' command menu) sets it up again for the bots set up before, once.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("connector_installations", (t) => {
    t.integer("platform_setup_version").notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("connector_installations", (t) => {
    t.dropColumn("platform_setup_version");
  });
}
