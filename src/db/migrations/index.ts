// Every migration, collected from where it lives: the foundation's here (src/db/migrations) and
// each area's beside its module (src/modules/<area>/migrations). Adding one edits no shared list.
// Names order them globally: the foundation's are 001_, 002_...; an area's begin with the date
// and a sequence number (20261123_01_team_members.ts), so tables an area needs exist first.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Knex } from "knex";

const SRC = fileURLToPath(new URL("../../", import.meta.url));
/** .ts where tsx runs the sources, .js in the compiled build (dist/): the files this module sits among. */
const EXTENSION = import.meta.url.endsWith(".js") ? ".js" : ".ts";
const NAME = /^(\d{3}|\d{8}_\d{2})_[a-z0-9_]+$/;

function migrationFolders(): string[] {
  const modules = join(SRC, "modules");
  const areas = existsSync(modules) ? readdirSync(modules).map((area) => join(modules, area, "migrations")) : [];
  return [join(SRC, "db", "migrations"), ...areas].filter((dir) => existsSync(dir));
}

/** Migration name (file name without .ts) -> file. Refuses a misnamed file or a name used twice. */
export function migrationFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const dir of migrationFolders()) {
    for (const file of readdirSync(dir)) {
      if (file === `index${EXTENSION}` || !file.endsWith(EXTENSION)) continue;
      const name = file.slice(0, -EXTENSION.length);
      if (!NAME.test(name)) throw new Error(`migration ${join(dir, file)}: name it NNN_what.ts (foundation) or YYYYMMDD_NN_what.ts (areas)`);
      if (files.has(name)) throw new Error(`migration ${name} exists twice: ${files.get(name)} and ${join(dir, file)}`);
      files.set(name, join(dir, file));
    }
  }
  return files;
}

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => [...migrationFiles().keys()].sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => (await import(pathToFileURL(migrationFiles().get(name)!).href)) as Knex.Migration,
};
