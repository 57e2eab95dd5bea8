// Browser sessions on {auth_url} and sign-ups waiting for their address to be confirmed. A session
// is stored by the SHA-256 of its cookie value, never the value itself; a sign-up keeps the
// password's scrypt hash and the SHA-256 of the link's secret.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("auth_sessions", (t) => {
    t.text("key_hash").primary();
    // The signed-in creator (null before sign-in completes); signing out everywhere deletes by it.
    t.uuid("user_id").nullable().references("users.id").onDelete("CASCADE").index();
    t.jsonb("data").notNullable();
    t.timestamp("expires_at", { useTz: true }).notNullable().index();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
  });
  await knex.schema.createTable("account_sign_ups", (t) => {
    t.uuid("id").primary();
    t.text("email").notNullable().index();
    t.text("password_hash").notNullable();
    t.text("team_name").nullable();
    t.text("return_to").nullable();
    t.text("token_hash").notNullable().unique();
    t.timestamp("expires_at", { useTz: true }).notNullable();
    t.timestamp("completed_at", { useTz: true }).nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("account_sign_ups");
  await knex.schema.dropTableIfExists("auth_sessions");
}
