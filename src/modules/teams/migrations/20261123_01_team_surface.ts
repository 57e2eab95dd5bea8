// The team surface: roles (built-in and custom), memberships holding a role, invitations, groups,
// and the events outbox every area writes to in the mutation's transaction.
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";

/** Built-in roles of every team; what they grant is defined in code (built-in-roles.ts), not stored. */
const BUILT_IN = [
  { code: "admin", name: "Admin" },
  { code: "member", name: "Member" },
];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("roles", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.text("code").notNullable();
    t.text("name").notNullable();
    t.jsonb("abilities").notNullable();
    t.boolean("built_in").notNullable().defaultTo(false);
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.unique(["team_id", "code"]);
  });
  // Every existing team gets the built-in roles; every membership without a role gets "member".
  const teams = (await knex("teams").select("id")) as { id: string }[];
  const now = new Date();
  for (const team of teams) {
    for (const role of BUILT_IN) {
      await knex("roles").insert({
        id: randomUUID(),
        team_id: team.id,
        code: role.code,
        name: role.name,
        abilities: "[]",
        built_in: true,
        created_at: now,
        updated_at: now,
      });
    }
  }
  await knex.raw(`update team_members m set role_id = r.id from roles r where m.role_id is null and r.team_id = m.team_id and r.code = 'member'`);
  await knex.schema.alterTable("team_members", (t) => {
    t.uuid("role_id").notNullable().alter();
    t.foreign("role_id").references("roles.id").onDelete("RESTRICT");
    t.index(["team_id", "role_id"]);
  });

  await knex.schema.createTable("team_invitations", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.text("email").notNullable();
    t.uuid("role_id").notNullable().references("roles.id").onDelete("CASCADE");
    // SHA-256 of the secret in the acceptance link; the secret itself is never stored.
    t.text("token_hash").notNullable().unique();
    t.uuid("invited_by_user_id").nullable().references("users.id").onDelete("SET NULL");
    t.text("status").notNullable().checkIn(["pending", "accepted", "withdrawn", "expired"], "team_invitations_status_check");
    t.timestamp("expires_at", { useTz: true }).notNullable();
    t.uuid("accepted_by_user_id").nullable().references("users.id").onDelete("SET NULL");
    t.timestamp("accepted_at", { useTz: true }).nullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.index(["team_id", "status", "created_at"]);
  });
  // One pending invitation per address and team.
  await knex.raw(`create unique index team_invitations_pending_email on team_invitations (team_id, lower(email)) where status = 'pending'`);

  await knex.schema.createTable("groups", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.text("code").notNullable();
    t.text("name").notNullable();
    t.jsonb("abilities").notNullable();
    t.jsonb("project_ids").notNullable();
    t.jsonb("member_user_ids").notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.unique(["team_id", "code"]);
  });

  await knex.schema.createTable("events", (t) => {
    // evt_ + ULID: sortable by creation time.
    t.text("id").primary();
    // No foreign key: team.deleted must outlive its team until it is delivered.
    t.uuid("team_id").notNullable();
    t.uuid("project_id").nullable();
    t.text("type").notNullable();
    t.text("api_version").notNullable();
    t.jsonb("data").notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.index(["team_id", "created_at"]);
  });

  // Messages to people (invitations now; alerts later), queued in the transaction that decides to
  // send them; a sender delivers them (none in this release: they wait, listed by the operator CLI).
  await knex.schema.createTable("mail_outbox", (t) => {
    t.uuid("id").primary();
    t.text("to_address").notNullable();
    t.text("subject").notNullable();
    t.text("body").notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("sent_at", { useTz: true }).nullable();
    t.index(["sent_at", "created_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ["mail_outbox", "events", "groups", "team_invitations"]) await knex.schema.dropTableIfExists(table);
  await knex.schema.alterTable("team_members", (t) => {
    t.dropForeign(["role_id"]);
    t.uuid("role_id").nullable().alter();
  });
  await knex.raw("update team_members set role_id = null");
  await knex.schema.dropTableIfExists("roles");
}
