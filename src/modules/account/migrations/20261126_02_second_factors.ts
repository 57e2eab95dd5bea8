// A creator's second factors: an authenticator app (TOTP), its recovery codes, and passkeys
// (WebAuthn credentials). They belong to the person, not to a team. The TOTP secret is sealed with
// APP_KEY (AES-256-GCM, bound to its creator); recovery codes are kept as SHA-256 only; a passkey
// row holds its public key, which is not a secret.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("totp_factors", (t) => {
    t.uuid("user_id").primary().references("users.id").onDelete("CASCADE");
    // Sealed base32 secret. Null enabled_at: an enrolment not yet confirmed with a code.
    t.text("secret_sealed").notNullable();
    t.timestamp("enabled_at", { useTz: true }).nullable();
    // The last accepted time step (RFC 6238): a code is never accepted twice.
    t.bigInteger("last_step").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
  });
  await knex.schema.createTable("recovery_codes", (t) => {
    t.uuid("id").primary();
    t.uuid("user_id").notNullable().references("users.id").onDelete("CASCADE");
    t.text("code_hash").notNullable();
    t.timestamp("used_at", { useTz: true }).nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.unique(["user_id", "code_hash"]);
  });
  await knex.schema.createTable("webauthn_credentials", (t) => {
    t.uuid("id").primary();
    t.uuid("user_id").notNullable().references("users.id").onDelete("CASCADE").index();
    // base64url, as the browser reports it; one authenticator credential names one creator.
    t.text("credential_id").notNullable().unique();
    // COSE public key, base64url.
    t.text("public_key").notNullable();
    t.bigInteger("counter").notNullable().defaultTo(0);
    t.jsonb("transports").notNullable().defaultTo("[]");
    t.text("name").notNullable();
    t.boolean("backed_up").notNullable().defaultTo(false);
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("last_used_at", { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("webauthn_credentials");
  await knex.schema.dropTableIfExists("recovery_codes");
  await knex.schema.dropTableIfExists("totp_factors");
}
