// An operator command sharing the running server's embedded database waits its turn on the one
// session longer than a request would; and knex's own warnings go to standard error, never into
// the server's JSON log lines or the CLI's JSON answer on standard output.
import assert from "node:assert/strict";
import { createServer, type AddressInfo } from "node:net";
import { pgDatabase } from "../../src/db/pool.ts";
import { DEFAULT_DATABASE_TIMEOUTS } from "../../src/db/timeouts.ts";
import { openEmbeddedDatabase } from "../../src/embedded/database.ts";
import { tempDir } from "../helpers/processes.ts";

describe("clients of the database", function () {
  this.timeout(60_000);

  it("lets an operator command wait past a request's connect bound while the server holds the embedded session", async () => {
    const dataDir = tempDir("client-wait");
    const tight = { ...DEFAULT_DATABASE_TIMEOUTS, connectMs: 300, acquireMs: 500 };
    // Only the command's bounds are under test: the server's own are the defaults, so a loaded
    // machine's slow first acquisition does not fail the server's side instead.
    const owner = await openEmbeddedDatabase({ dataDir, mode: "own", timeouts: DEFAULT_DATABASE_TIMEOUTS });
    const client = await openEmbeddedDatabase({ dataDir, mode: "share", timeouts: tight });
    try {
      let answered: Promise<unknown> = Promise.resolve();
      await owner.db.transaction(async (trx) => {
        await trx.raw("select 1");
        // The command's connection queues behind the transaction, which stays busy for 1.5 s.
        answered = client.db.raw("select 2 as two").then(
          (r: { rows: unknown[] }) => r.rows,
          (err: Error) => err,
        );
        for (let i = 0; i < 5; i++) {
          await new Promise((r) => setTimeout(r, 300));
          await trx.raw("select 1");
        }
      });
      assert.deepEqual(await answered, [{ two: 2 }]);
    } finally {
      await client.close();
      await owner.close();
    }
  });

  it("writes knex's warnings to standard error, one line each", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const { port } = s.address() as AddressInfo;
        s.close(() => resolve(port));
      });
    });
    const db = pgDatabase({ host: "127.0.0.1", port, database: "nothing" }, { ...DEFAULT_DATABASE_TIMEOUTS, connectMs: 500, acquireMs: 500 });
    const written = { stdout: "", stderr: "" };
    const writes = { stdout: process.stdout.write, stderr: process.stderr.write };
    for (const stream of ["stdout", "stderr"] as const)
      process[stream].write = ((chunk: string | Uint8Array) => ((written[stream] += String(chunk)), true)) as typeof process.stdout.write;
    try {
      await assert.rejects(db.raw("select 1"));
    } finally {
      process.stdout.write = writes.stdout;
      process.stderr.write = writes.stderr;
      await db.destroy();
    }
    assert.doesNotMatch(written.stdout, /Acquire connection error/);
    assert.match(written.stderr, /^knex: Acquire connection error: .*ECONNREFUSED/m);
  });
});
