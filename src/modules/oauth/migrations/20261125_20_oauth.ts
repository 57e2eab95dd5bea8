// OAuth 2.1 for MCP clients: registered public clients, authorization codes, access tokens and
// refresh tokens. No code or token is stored in clear: codes and refresh tokens by the SHA-256 of
// the whole value, access tokens (sbo_live_<id>_<secret>) by id and the SHA-256 of the secret. A
// family is one connection (one approval): every token issued from the same code shares it, and a
// refresh token presented again after its rotation revokes the whole family.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("oauth_clients", (t) => {
    t.text("client_id").primary();
    t.text("client_name").notNullable();
    t.jsonb("redirect_uris").notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
  });
  await knex.schema.createTable("oauth_authorization_codes", (t) => {
    t.text("code_hash").primary();
    t.text("client_id").notNullable().references("oauth_clients.client_id").onDelete("CASCADE");
    t.uuid("user_id").notNullable().references("users.id").onDelete("CASCADE");
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.text("redirect_uri").notNullable();
    t.text("code_challenge").notNullable();
    t.text("scope").notNullable();
    t.timestamp("expires_at", { useTz: true }).notNullable();
    // Set once the code is exchanged, with the family it started (a second use revokes it).
    t.timestamp("used_at", { useTz: true }).nullable();
    t.uuid("family_id").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
  });
  await knex.schema.createTable("oauth_access_tokens", (t) => {
    t.bigIncrements("id").primary();
    t.text("secret_hash").notNullable();
    t.text("client_id").notNullable().references("oauth_clients.client_id").onDelete("CASCADE");
    t.uuid("user_id").notNullable().references("users.id").onDelete("CASCADE");
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("family_id").notNullable().index();
    t.text("scope").notNullable();
    t.timestamp("expires_at", { useTz: true }).notNullable();
    t.timestamp("revoked_at", { useTz: true }).nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
  });
  await knex.schema.createTable("oauth_refresh_tokens", (t) => {
    t.text("token_hash").primary();
    t.text("client_id").notNullable().references("oauth_clients.client_id").onDelete("CASCADE");
    t.uuid("user_id").notNullable().references("users.id").onDelete("CASCADE");
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("family_id").notNullable().index();
    t.text("scope").notNullable();
    // active: may be used once; rotated: spent by a renewal; revoked: its family was revoked.
    t.text("status").notNullable().defaultTo("active").checkIn(["active", "rotated", "revoked"], "oauth_refresh_status_check");
    // 30 days from the last use of the family (each renewal issues a new token with a new expiry).
    t.timestamp("expires_at", { useTz: true }).notNullable();
    t.timestamp("used_at", { useTz: true }).nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ["oauth_refresh_tokens", "oauth_access_tokens", "oauth_authorization_codes", "oauth_clients"]) {
    await knex.schema.dropTableIfExists(table);
  }
}
