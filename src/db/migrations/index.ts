// The migration list, imported statically so migrations run the same under tsx, in tests and
// from the CLI, without scanning the file system.
import type { Knex } from "knex";
import * as foundation from "./001_foundation.ts";
import * as deployment from "./002_deployment.ts";

const migrations: Record<string, Knex.Migration> = {
  "001_foundation": foundation,
  "002_deployment": deployment,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name]!,
};
