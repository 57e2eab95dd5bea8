// Agent registrations (service description, "Agent registration"): an agent names a creator by
// email and asks for abilities; the creator confirms with a 6-digit code; the agent collects a
// personal access token once. A row belongs to no team until it is confirmed (confirmed_team_id is
// deliberately not named team_id: the row is reached through an unscoped access, never a TenantTable).
// The claim token is shown once and only its SHA-256 is kept; the user code likewise (hashed with
// the registration id, so equal codes of two registrations differ).
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("agent_registrations", (t) => {
    t.uuid("id").primary();
    // service_auth, or the legacy identity_assertion (verified_email).
    t.text("registration_type").notNullable().checkIn(["service_auth", "identity_assertion"], "agent_registrations_type_check");
    t.text("client_name").notNullable();
    // The named creator's email, trimmed and lower-cased; it may name no account (never confirmable).
    t.text("login_email").notNullable();
    // post_claim_scopes: the abilities the collected token carries.
    t.jsonb("abilities").notNullable();
    t.text("claim_token_hash").notNullable().unique();
    t.timestamp("claim_expires_at", { useTz: true }).notNullable();
    t.text("user_code_hash").notNullable();
    t.timestamp("user_code_expires_at", { useTz: true }).notNullable();
    t.integer("wrong_code_count").notNullable().defaultTo(0);
    t.text("state")
      .notNullable()
      .defaultTo("registered")
      .checkIn(["registered", "claimed", "expired", "collected"], "agent_registrations_state_check");
    t.uuid("confirmed_user_id").nullable().references("users.id").onDelete("CASCADE");
    t.uuid("confirmed_team_id").nullable().references("teams.id").onDelete("CASCADE");
    t.timestamp("confirmed_at", { useTz: true }).nullable();
    t.bigInteger("token_id").nullable().references("personal_access_tokens.id").onDelete("SET NULL");
    t.timestamp("collected_at", { useTz: true }).nullable();
    // The last token-endpoint poll (slow_down when the next comes sooner than the interval).
    t.timestamp("last_polled_at", { useTz: true }).nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    // The confirmation page finds a creator's open registrations by their email.
    t.index(["login_email", "state"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("agent_registrations");
}
