// The service's Ed25519 key pair that signs every delivery as an HTTP Message Signature (RFC 9421).
// Kept in the database, not on a machine's disk, so every process sharing one PostgreSQL signs with
// the same key and the published directory lists it. The private key is sealed with APP_KEY (bound
// to the kid); kid is the key's JWK SHA-256 thumbprint (RFC 7638), so it cannot be reused by
// another key. At most one key is active (retired_at null): the partial unique index is what lets
// several processes starting together create it race-free (insert ... on conflict do nothing).
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("webhook_signing_keys", (t) => {
    t.text("kid").primary();
    t.timestamp("created_at", { useTz: true }).notNullable();
    // Set when a newer key takes over (rotation is not built yet; the column reserves its place).
    t.timestamp("retired_at", { useTz: true }).nullable();
    // The public key's x (base64url of the 32 raw bytes): the JWK is rebuilt from it.
    t.text("public_x").notNullable();
    // PKCS #8 DER, base64url, sealed with APP_KEY and bound to "webhook-signing-key:<kid>".
    t.text("private_key_sealed").notNullable();
  });
  await knex.raw("create unique index webhook_signing_keys_one_active on webhook_signing_keys ((retired_at is null)) where retired_at is null");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("webhook_signing_keys");
}
