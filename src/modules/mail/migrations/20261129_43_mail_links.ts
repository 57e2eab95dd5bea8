// A message's own links (issue 43): the HTML part links exactly these and shows every other
// URL-looking text defused, so a name or instruction someone else wrote is never a link. Messages
// queued before have none (null): their HTML part links nothing, their text part is unchanged.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("mail_outbox", (t) => {
    t.jsonb("links").nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("mail_outbox", (t) => {
    t.dropColumn("links");
  });
}
