// The token row's two rules as column types instead of table CHECK constraints: `kind` an enum,
// `project_ids` a domain over jsonb that refuses an empty allow-list (same constraint name, same
// rule). What is stored and refused is unchanged. Why: PostgreSQL (up to 17 at least) reads a
// table's CHECK expressions back from their stored text and plans them again for every INSERT
// statement, while an enum's values and a domain's constraint are cached across statements, and
// minting a token is the service's most frequent write (figures: docs/performance.md).
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.raw("create type token_kind as enum ('personal', 'agent_registration')");
  await knex.raw(
    "create domain token_project_ids as jsonb constraint pat_project_ids_not_empty check (value is null or jsonb_array_length(value) > 0)",
  );
  await knex.raw("alter table personal_access_tokens drop constraint pat_kind_check, drop constraint pat_project_ids_not_empty");
  await knex.raw(
    "alter table personal_access_tokens alter column kind drop default, alter column kind type token_kind using kind::token_kind, " +
      "alter column kind set default 'personal', alter column project_ids type token_project_ids",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    "alter table personal_access_tokens alter column kind drop default, alter column kind type text using kind::text, " +
      "alter column kind set default 'personal', alter column project_ids type jsonb",
  );
  await knex.raw(
    "alter table personal_access_tokens add constraint pat_kind_check check (kind in ('personal', 'agent_registration')), " +
      "add constraint pat_project_ids_not_empty check (project_ids is null or jsonb_array_length(project_ids) > 0)",
  );
  await knex.raw("drop domain token_project_ids");
  await knex.raw("drop type token_kind");
}
