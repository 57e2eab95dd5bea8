// Outbound webhooks: a team's endpoints (secret sealed with APP_KEY, bound to the endpoint's id)
// and their deliveries, durable rows the dispatcher's workers claim by status and next_attempt_at.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("webhook_endpoints", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    // Null: the whole team's events; set: that project's only.
    t.uuid("project_id").nullable().references("projects.id").onDelete("CASCADE");
    // The registering member: with the team owner, the only one who may change the endpoint.
    t.uuid("created_by_user_id").notNullable();
    t.text("name").notNullable();
    t.text("url").notNullable();
    t.jsonb("events").notNullable();
    t.jsonb("allowed_ips").nullable();
    t.text("secret_sealed").notNullable();
    t.boolean("is_active").notNullable().defaultTo(true);
    t.timestamp("disabled_at", { useTz: true }).nullable();
    t.integer("consecutive_failures").notNullable().defaultTo(0);
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.index(["team_id", "created_at"]);
  });
  await knex.schema.createTable("webhook_deliveries", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("endpoint_id").notNullable().references("webhook_endpoints.id").onDelete("CASCADE");
    // The endpoint's project (tenant filter); null for a team-wide endpoint.
    t.uuid("project_id").nullable();
    t.text("event_id").notNullable();
    t.text("event_type").notNullable();
    // queued (first or next attempt due at next_attempt_at), delivered, dead.
    t.text("status").notNullable().defaultTo("queued");
    t.integer("attempts").notNullable().defaultTo(0);
    t.timestamp("next_attempt_at", { useTz: true }).nullable();
    t.timestamp("last_attempt_at", { useTz: true }).nullable();
    t.timestamp("delivered_at", { useTz: true }).nullable();
    t.integer("response_status").nullable();
    t.text("response_excerpt").nullable();
    t.integer("duration_ms").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    // One delivery per event and endpoint (the fan-out may run twice).
    t.unique(["endpoint_id", "event_id"]);
    t.index(["team_id", "endpoint_id", "created_at"]);
    // What workers claim: due queued deliveries, oldest first.
    t.index(["status", "next_attempt_at"]);
  });
  await knex.raw("alter table webhook_deliveries add constraint webhook_deliveries_status check (status in ('queued', 'delivered', 'dead'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("webhook_deliveries");
  await knex.schema.dropTableIfExists("webhook_endpoints");
}
