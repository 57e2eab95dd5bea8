// Issue 45: a sign-in through the platform's own OAuth (Discord) leaves the browser for the
// platform and comes back to one fixed callback, so the handoff remembers where the member was
// going (a page of the project's portal) and the start payload of the deep link that began it.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("portal_handoffs", (t) => {
    t.text("return_to").nullable();
    t.text("start_payload").nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("portal_handoffs", (t) => {
    t.dropColumn("return_to");
    t.dropColumn("start_payload");
  });
}
