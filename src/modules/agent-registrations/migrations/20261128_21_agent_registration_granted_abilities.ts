// What a confirmed registration's token will carry (issue 32): the abilities the agent asked for
// that the confirming creator's place on the team granted at that moment, fixed at confirmation so
// a role raised later does not widen the token. Null until confirmed.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("agent_registrations", (t) => {
    t.jsonb("granted_abilities").nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("agent_registrations", (t) => {
    t.dropColumn("granted_abilities");
  });
}
