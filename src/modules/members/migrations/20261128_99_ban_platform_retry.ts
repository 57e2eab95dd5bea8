// A ban the platform refuses is tried again later, not first in every sweep, as a refused grant is:
// how many times it failed, when it is due again and the platform's last words (access-sync.ts).
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("members", (t) => {
    t.integer("platform_attempts").notNullable().defaultTo(0);
    t.timestamp("platform_retry_at", { useTz: true }).nullable();
    t.text("platform_error").nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("members", (t) => {
    t.dropColumn("platform_attempts");
    t.dropColumn("platform_retry_at");
    t.dropColumn("platform_error");
  });
}
