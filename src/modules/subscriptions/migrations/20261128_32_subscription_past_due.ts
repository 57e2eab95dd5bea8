// past_due (issue 33): a provider's renewal failed; access continues through a grace period
// (ends_at), and the subscription is still the member's one live subscription on the project.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.raw("alter table subscriptions drop constraint subscriptions_status_check");
  await knex.raw(
    "alter table subscriptions add constraint subscriptions_status_check check (status in ('trialing', 'active', 'past_due', 'canceled', 'expired'))",
  );
  await knex.raw("drop index subscriptions_one_live");
  await knex.raw(
    "create unique index subscriptions_one_live on subscriptions (project_id, member_id) where status in ('trialing', 'active', 'past_due')",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("drop index subscriptions_one_live");
  await knex.raw("create unique index subscriptions_one_live on subscriptions (project_id, member_id) where status in ('trialing', 'active')");
  await knex.raw("alter table subscriptions drop constraint subscriptions_status_check");
  await knex.raw(
    "alter table subscriptions add constraint subscriptions_status_check check (status in ('trialing', 'active', 'canceled', 'expired'))",
  );
}
