// The project surface: the links a project's bot and portal show (terms, privacy), the archived
// state, and every handle a project has ever held. A handle is claimed once, service-wide, by
// inserting its row here (the primary key decides a race); the current handle has retired_at
// null, a superseded one the time it was replaced. Rows outlive their project and team (no
// foreign keys): a handle that once led to a community never leads to another one.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("projects", (t) => {
    t.text("terms_url").nullable();
    t.text("privacy_url").nullable();
    // Set while the project is archived (active false); null when active.
    t.timestamp("archived_at", { useTz: true }).nullable();
  });
  await knex.schema.createTable("project_handles", (t) => {
    t.text("handle").primary();
    t.uuid("project_id").notNullable();
    t.uuid("team_id").notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("retired_at", { useTz: true }).nullable();
    t.index(["project_id"]);
  });
  await knex.raw(
    "insert into project_handles (handle, project_id, team_id, created_at, retired_at) select handle, id, team_id, created_at, null from projects",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("project_handles");
  await knex.schema.alterTable("projects", (t) => {
    t.dropColumn("archived_at");
    t.dropColumn("privacy_url");
    t.dropColumn("terms_url");
  });
}
