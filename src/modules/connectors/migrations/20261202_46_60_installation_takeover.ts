// A standby installation takes over from an installation whose bot no longer works (recovery,
// issue 46): taken_over_by names the standby whose bot sends for the project from then on, and
// taken_over_at says when. The standby deleted hands the sending back (SET NULL).
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("connector_installations", (t) => {
    t.uuid("taken_over_by").nullable().references("connector_installations.id").onDelete("SET NULL");
    t.timestamp("taken_over_at", { useTz: true }).nullable();
    // A standby's updates look up what it stands in for.
    t.index(["taken_over_by"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("connector_installations", (t) => {
    t.dropIndex(["taken_over_by"]);
    t.dropColumn("taken_over_by");
    t.dropColumn("taken_over_at");
  });
}
