// The invitation budget (invitation-budget.ts) counts a team's invitations, and an address's from
// every team, made in the last 24 hours at each invitation: each count reads its own index.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.raw("create index team_invitations_team_made on team_invitations (team_id, created_at)");
  await knex.raw("create index team_invitations_address_made on team_invitations (lower(email), created_at)");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("drop index if exists team_invitations_address_made");
  await knex.raw("drop index if exists team_invitations_team_made");
}
