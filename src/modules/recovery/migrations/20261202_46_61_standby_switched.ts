// A standby pair switched once its place was lost and the members moved to the standby place
// (switched_at; the conditional update on it makes the move happen once), and how many moved.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("recovery_resource_standbys", (t) => {
    t.timestamp("switched_at", { useTz: true }).nullable();
    t.integer("members_moved").nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("recovery_resource_standbys", (t) => {
    t.dropColumn("switched_at");
    t.dropColumn("members_moved");
  });
}
