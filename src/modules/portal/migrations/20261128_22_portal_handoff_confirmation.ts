// The member confirms a portal sign-in after seeing what it is for (issue 32): the handoff keeps a
// few words about the browser that asked (browser_summary, e.g. "Chrome on Android"), and the
// bot's answer to /start auth_<token> proposes the platform account's member with a one-time
// confirmation link (confirm_hash: SHA-256 of its secret, sent only in that account's chat). The
// handoff is claimed (member_id) only when that link's page is confirmed.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("portal_handoffs", (t) => {
    t.text("browser_summary").notNullable().defaultTo("an unrecognised browser");
    t.uuid("proposed_member_id").nullable().references("members.id").onDelete("CASCADE");
    t.text("confirm_hash").nullable().unique();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("portal_handoffs", (t) => {
    t.dropColumn("confirm_hash");
    t.dropColumn("proposed_member_id");
    t.dropColumn("browser_summary");
  });
}
