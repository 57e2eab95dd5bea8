// A place a creator adds or moves is probed at the probe's next run rather than after the setting's
// interval (probe_requested_at), and the places failing at the last verdict are kept, so a place
// that starts failing while the status stays degraded or lost is still told (failing_places; null
// until a verdict records them, so settings degraded before this release are not told twice).
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("recovery_settings", (t) => {
    t.timestamp("probe_requested_at", { useTz: true }).nullable();
    t.jsonb("failing_places").nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("recovery_settings", (t) => {
    t.dropColumn("probe_requested_at");
    t.dropColumn("failing_places");
  });
}
