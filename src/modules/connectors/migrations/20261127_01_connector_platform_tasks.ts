// What an installation change asks of its platform (point the bot's updates here, or stop them),
// written in the change's transaction and carried out after COMMIT: no platform call runs inside a
// transaction, and a change that rolls back asks nothing of the platform. A task that fails is
// tried again by the connectors.platform-tasks job; a worker holds one for a while (claimed_until)
// while it calls the platform, so two processes do not run it at once.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("connector_platform_tasks", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    // No foreign key: the task outlives the installation (stopping an uninstalled bot's updates).
    t.uuid("project_id").notNullable();
    t.uuid("installation_id").notNullable();
    t.text("connector_key").notNullable();
    t.text("platform_account_id").nullable();
    // deliver_updates (to target_url) or stop_updates.
    t.text("action").notNullable();
    t.text("target_url").nullable();
    // The installation's sealed credentials when the task was asked for (encrypt bound to installation_id).
    t.text("credentials").nullable();
    t.integer("attempts").notNullable().defaultTo(0);
    t.text("last_error").nullable();
    t.timestamp("next_attempt_at", { useTz: true }).notNullable();
    t.timestamp("claimed_until", { useTz: true }).nullable();
    // done (carried out), superseded (a later task of the installation's account replaced it) or failed (given up).
    t.text("outcome").nullable();
    t.timestamp("finished_at", { useTz: true }).nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
  });
  await knex.raw("create index connector_platform_tasks_due on connector_platform_tasks (next_attempt_at) where finished_at is null");
  await knex.raw("create index connector_platform_tasks_installation on connector_platform_tasks (installation_id) where finished_at is null");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("connector_platform_tasks");
}
