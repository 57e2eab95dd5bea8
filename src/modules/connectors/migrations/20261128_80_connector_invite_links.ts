// Issue 34, item 6: the single-use invite links the connector sweep sent to members, remembered so
// that a link still unused when its grant is revoked (the subscription ended, the member banned) is
// revoked on the platform; and the joins the platforms reported, which the sweep checks against the
// access ledger (a join without a covering grant is removed).
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("connector_invite_links", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable();
    // No foreign keys on the rest: a link outlives an uninstall, and the row must stay to be revoked.
    t.uuid("installation_id").notNullable();
    t.uuid("grant_id").notNullable();
    t.uuid("member_id").notNullable();
    // The place on the platform (a Telegram chat id, a Discord channel id) and the link itself.
    t.text("place").notNullable();
    t.text("link").notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("expires_at", { useTz: true }).notNullable();
    t.timestamp("revoked_at", { useTz: true }).nullable();
    t.timestamp("used_at", { useTz: true }).nullable();
    t.unique(["installation_id", "link"]);
    t.index(["grant_id"]);
    t.index(["member_id"]);
  });
  await knex.schema.createTable("connector_platform_joins", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable();
    t.uuid("installation_id").notNullable();
    t.text("place").notNullable();
    t.text("external_user_id").notNullable();
    // The invite link the platform says the user joined through (null: another way in).
    t.text("invite_link").nullable();
    t.timestamp("joined_at", { useTz: true }).notNullable();
    // Set by the sweep once the join is checked; removed_at when it found no covering grant.
    t.timestamp("checked_at", { useTz: true }).nullable();
    t.timestamp("removed_at", { useTz: true }).nullable();
  });
  await knex.raw("CREATE INDEX connector_platform_joins_unchecked ON connector_platform_joins (joined_at) WHERE checked_at IS NULL");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("connector_platform_joins");
  await knex.schema.dropTable("connector_invite_links");
}
