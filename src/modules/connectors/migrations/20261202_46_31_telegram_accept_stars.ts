// accept_stars (issue 46): a Telegram installation without the setting keeps selling in Stars as it
// did before the toggle existed; writing `true` into the existing ones makes the dashboard's toggle
// show what the bot does.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `update connector_installations set settings = settings || '{"accept_stars": true}'::jsonb
      where connector_key = 'telegram' and settings -> 'accept_stars' is null`,
  );
}

export async function down(): Promise<void> {
  // The value written is what the absent setting meant: nothing to undo.
}
