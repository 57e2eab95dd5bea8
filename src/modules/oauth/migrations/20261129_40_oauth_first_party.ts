// The creator dashboard signs in as a first-party OAuth client (issue 44): registered by the server
// itself at start, never purged, approved without a consent screen, and its access tokens work on
// the REST API as the creator (actor kind human) as well as on MCP.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("oauth_clients", (t) => {
    t.boolean("first_party").notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("oauth_clients", (t) => {
    t.dropColumn("first_party");
  });
}
