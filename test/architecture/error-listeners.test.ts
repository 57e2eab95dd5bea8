// Every client of the database or the KV store the process creates listens for 'error': an event
// emitter's unheard 'error' ends the process, and a server ends sessions whenever it must (a
// terminated backend, a restart, a failover). This finds each place src/ creates a pg Client or
// Pool, pg-boss, a Redis client or a socket, and fails when its file attaches fewer 'error'
// listeners than it creates. knex is the one exception, by construction: it listens on every
// connection it opens itself (test/db/outage.test.ts terminates them, and pg-boss's, at run time).
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith(".ts") ? [path] : [];
  });
}

const importsFrom = (module: string) => (text: string) => new RegExp(`from\\s+["']${module}["']`).test(text);

/** What creates an emitter whose 'error' must be heard, and in which files the pattern means it. */
const CREATIONS: { what: string; pattern: RegExp; applies: (text: string) => boolean }[] = [
  { what: "a pg Client or Pool", pattern: /\bnew\s+(?:pg\.)?(?:Client|Pool)\s*\(/g, applies: importsFrom("pg") },
  { what: "pg-boss", pattern: /\bnew\s+PgBoss\s*\(/g, applies: () => true },
  { what: "a Redis client", pattern: /\bcreateClient\s*\(/g, applies: (text) => importsFrom("redis")(text) || importsFrom("@redis/client")(text) },
  { what: "a socket", pattern: /\b(?:connect|createConnection)\s*\(/g, applies: importsFrom("node:net") },
];
const ERROR_LISTENER = /\.(?:on|once|prependListener)\(\s*["']error["']/g;

/** Every match of a global pattern (String#match starts from the text's beginning each time). */
const count = (text: string, pattern: RegExp): string[] => text.match(pattern) ?? [];

/** The clients `text` creates with too few 'error' listeners attached in the file, as messages. */
function unheardClients(file: string, text: string): string[] {
  const created = CREATIONS.flatMap(({ what, pattern, applies }) => (applies(text) ? count(text, pattern) : []).map(() => what));
  const listeners = count(text, ERROR_LISTENER).length;
  return created.length > listeners ? [`${file} creates ${created.join(", ")} with ${listeners} 'error' listener(s)`] : [];
}

describe("error listeners on every backend client", () => {
  const sources = filesUnder(join(ROOT, "src")).map((path) => ({ file: relative(ROOT, path), text: readFileSync(path, "utf8") }));

  it("attaches an 'error' listener to each pg client and pool, pg-boss, Redis client and socket src/ creates", () => {
    assert.deepEqual(
      sources.flatMap(({ file, text }) => unheardClients(file, text)),
      [],
    );
    // The places known today are found: a scan that finds nothing could not fail.
    const creators = sources
      .filter(({ text }) => CREATIONS.some((c) => c.applies(text) && count(text, c.pattern).length > 0))
      .map(({ file }) => file);
    for (const known of ["src/db/database.ts", "src/workers/jobs/worker.ts", "src/kv/redis.ts", "src/embedded/database.ts"])
      assert.ok(creators.includes(known), known);
  });

  it("fails a file that creates one without", () => {
    const session = 'import pg from "pg";\nconst session = new pg.Client(settings);\nawait session.connect();\n';
    assert.equal(unheardClients("new.ts", session).length, 1);
    assert.deepEqual(unheardClients("new.ts", `${session}session.on("error", () => undefined);\n`), []);
    const two =
      'import PgBoss from "pg-boss";\nimport { createClient } from "redis";\nconst boss = new PgBoss(o);\nconst r = createClient(o);\nboss.on("error", log);\n';
    assert.deepEqual(unheardClients("two.ts", two), ["two.ts creates pg-boss, a Redis client with 1 'error' listener(s)"]);
  });
});
