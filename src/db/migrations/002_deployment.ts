// The deployment's identity, kept by its own database: every process that shares the database is
// one deployment, and another deployment (its own database) has another id even when it shares a
// Redis server. Redis keys carry it, so counters, locks and cached responses never cross
// deployments. Also: a token's project allow-list is never empty (a token restricted to no
// project would read as unrestricted).
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("deployment", (t) => {
    // One row: the primary key can only be true.
    t.boolean("singleton").primary().defaultTo(true);
    t.uuid("id").notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.check("singleton", [], "deployment_singleton_check");
  });
  await knex("deployment").insert({ singleton: true, id: randomUUID(), created_at: new Date() });

  // Tokens minted with "project_ids": [] before the API refused it acted on no project while their
  // scopes read as team-wide: revoke them (their holders mint a token that says what it is).
  await knex("personal_access_tokens")
    .whereRaw("project_ids = '[]'::jsonb")
    .update({ project_ids: null, revoked_at: knex.raw("coalesce(revoked_at, now())") });
  await knex.raw(
    "alter table personal_access_tokens add constraint pat_project_ids_not_empty check (project_ids is null or jsonb_array_length(project_ids) > 0)",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("alter table personal_access_tokens drop constraint if exists pat_project_ids_not_empty");
  await knex.schema.dropTableIfExists("deployment");
}
