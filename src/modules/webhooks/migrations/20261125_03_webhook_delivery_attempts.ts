// Every attempt of a delivery, kept: when it was made, what came of it (delivered, failed, refused
// unposted), the answer's status, how long it took and a bounded excerpt. The delivery row keeps
// the last attempt's; this is the history a creator reads to see why a delivery is dead.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("webhook_delivery_attempts", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("delivery_id").notNullable().references("webhook_deliveries.id").onDelete("CASCADE");
    // The endpoint's project (tenant filter), as on the delivery.
    t.uuid("project_id").nullable();
    // 1-8 within a round of attempts (retry-dead starts a new round).
    t.integer("attempt").notNullable();
    t.timestamp("attempted_at", { useTz: true }).notNullable();
    t.text("outcome").notNullable();
    t.integer("response_status").nullable();
    t.integer("duration_ms").nullable();
    t.text("excerpt").notNullable();
    t.index(["delivery_id", "attempted_at"]);
  });
  await knex.raw(
    "alter table webhook_delivery_attempts add constraint webhook_delivery_attempts_outcome check (outcome in ('delivered', 'failed', 'refused'))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("webhook_delivery_attempts");
}
