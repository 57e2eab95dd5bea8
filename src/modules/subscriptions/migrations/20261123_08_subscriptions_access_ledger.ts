// Subscriptions and the access ledger: a subscription entitles its member to each resource its plan
// grants; each entitlement is a grant (pending until fulfilled, then granted; revoked when the
// subscription ends or the member is banned).
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("subscriptions", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    t.uuid("member_id").notNullable().references("members.id").onDelete("CASCADE");
    t.uuid("plan_id").notNullable().references("plans.id");
    t.text("status").notNullable().checkIn(["trialing", "active", "canceled", "expired"], "subscriptions_status_check");
    // How it began: access_code (this release), checkout (a payment provider, later).
    t.text("source").notNullable();
    t.timestamp("started_at", { useTz: true }).notNullable();
    // End of the paid period (access stops); null for lifetime.
    t.timestamp("ends_at", { useTz: true }).nullable();
    t.timestamp("trial_ends_at", { useTz: true }).nullable();
    t.timestamp("canceled_at", { useTz: true }).nullable();
    t.timestamp("expired_at", { useTz: true }).nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.index(["team_id", "project_id", "status", "created_at"]);
    t.index(["member_id"]);
    t.index(["status", "ends_at"]);
  });
  // One live subscription per member and project (SUBSCRIPTION_ALREADY_ACTIVE), even under races.
  await knex.raw("create unique index subscriptions_one_live on subscriptions (project_id, member_id) where status in ('trialing', 'active')");
  await knex.schema.createTable("access_grants", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    t.uuid("subscription_id").notNullable().references("subscriptions.id").onDelete("CASCADE");
    t.uuid("member_id").notNullable().references("members.id").onDelete("CASCADE");
    t.uuid("resource_id").notNullable().references("resources.id").onDelete("CASCADE");
    t.text("grant_mode").notNullable().checkIn(["bearer_link", "membership", "role", "creator_task"], "access_grants_mode_check");
    t.text("status").notNullable().checkIn(["pending", "granted", "revoked"], "access_grants_status_check");
    t.timestamp("granted_at", { useTz: true }).nullable();
    t.timestamp("revoked_at", { useTz: true }).nullable();
    // When the connector last applied the grant's status on the platform; null = still to do
    // (pending: grant access; revoked: remove it). Creator-task grants need no connector.
    t.timestamp("platform_synced_at", { useTz: true }).nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.index(["subscription_id"]);
    t.index(["team_id", "project_id", "member_id"]);
    t.index(["status", "platform_synced_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("access_grants");
  await knex.schema.dropTableIfExists("subscriptions");
}
