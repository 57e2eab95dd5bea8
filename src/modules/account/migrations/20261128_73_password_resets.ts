// Password resets for creators: a one-time link mailed to the account's address, stored as the
// SHA-256 of its secret, working for an hour and once.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("password_resets", (t) => {
    t.text("token_hash").primary();
    t.uuid("user_id").notNullable().references("users.id").onDelete("CASCADE").index();
    t.timestamp("expires_at", { useTz: true }).notNullable();
    t.timestamp("used_at", { useTz: true }).nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("password_resets");
}
