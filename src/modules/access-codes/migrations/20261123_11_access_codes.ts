// Access codes: single-use codes that redeem a plan without a payment provider. A code is a random
// lowercase UUID v4 shown in full once (in the generation response); only its SHA-256 and a masked
// form are stored, so a leaked table cannot redeem anything. Codes are case-sensitive (the hash is
// of the exact string).
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("access_codes", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    t.uuid("plan_id").notNullable().references("plans.id").onDelete("CASCADE");
    // The generation request that made it (access_code.generated fires once per batch).
    t.uuid("batch_id").notNullable();
    // sha256 hex of the exact code string.
    t.text("code_hash").notNullable();
    // First 4 and last 4 characters, the rest as asterisks (what lists show).
    t.text("code_masked").notNullable();
    t.text("status").notNullable().defaultTo("unredeemed").checkIn(["unredeemed", "redeemed", "expired"], "access_codes_status_check");
    t.timestamp("expires_at", { useTz: true }).nullable();
    t.timestamp("redeemed_at", { useTz: true }).nullable();
    t.uuid("redeemed_by_member_id").nullable().references("members.id").onDelete("SET NULL");
    t.uuid("subscription_id").nullable().references("subscriptions.id").onDelete("SET NULL");
    t.timestamp("expired_at", { useTz: true }).nullable();
    t.uuid("created_by_user_id").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.unique(["project_id", "code_hash"]);
    // The monthly generation quota counts a team's codes by creation time.
    t.index(["team_id", "created_at"]);
    t.index(["team_id", "project_id", "plan_id", "status", "created_at"]);
    t.index(["status", "expires_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("access_codes");
}
