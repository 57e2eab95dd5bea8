// One-time links a creator opens in a connector's bot to link their account there as an identity
// (the authorization host's "Linked accounts" page). Only the token's SHA-256 is stored; a row is
// used once, through the installation (of the creator's team) it was made for, before it expires.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("identity_link_tokens", (t) => {
    t.uuid("id").primary();
    t.uuid("user_id").notNullable().references("users.id").onDelete("CASCADE").index();
    t.uuid("installation_id").notNullable().references("connector_installations.id").onDelete("CASCADE");
    t.text("token_hash").notNullable().unique();
    t.timestamp("expires_at", { useTz: true }).notNullable();
    t.timestamp("used_at", { useTz: true }).nullable();
    // The identity the link made (null until used; gone with the identity when it is unlinked).
    t.uuid("identity_id").nullable().references("identities.id").onDelete("SET NULL");
    t.timestamp("created_at", { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("identity_link_tokens");
}
