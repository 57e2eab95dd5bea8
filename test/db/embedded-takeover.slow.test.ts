// Who owns an embedded database directory: the first process to bind its socket; a socket left
// by a killed process is taken over by exactly one of the processes that find it.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { openEmbeddedDatabase, type EmbeddedDatabase } from "../../src/embedded/database.ts";
import { tempDir } from "../helpers/processes.ts";

/** A socket file whose process was killed (kill -9 leaves the file behind). */
async function deadSocket(path: string): Promise<void> {
  const child = spawn(process.execPath, ["-e", `require("node:net").createServer().listen(${JSON.stringify(path)}, () => console.log("up"))`], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
  child.kill("SIGKILL");
  await new Promise((resolve) => child.once("exit", resolve));
  assert.ok(existsSync(path), "the killed process left its socket file");
}

describe("[embedded] embedded database ownership", function () {
  this.timeout(60_000);

  it("one of several processes starting at once takes over a dead socket; the others become its clients", async () => {
    const dir = tempDir("takeover");
    await deadSocket(join(dir, ".s.PGSQL.5432"));
    const opened: EmbeddedDatabase[] = await Promise.all(Array.from({ length: 4 }, () => openEmbeddedDatabase({ dataDir: dir, mode: "share" })));
    try {
      assert.equal(opened.filter((d) => d.owner).length, 1, "exactly one owner");
      const owner = opened.find((d) => d.owner)!;
      await owner.db.raw("create table marks (who int)");
      await Promise.all(opened.map((d, i) => d.db.raw("insert into marks values (?)", [i])));
      for (const d of opened)
        assert.equal((await d.db.raw("select count(*)::int as n from marks")).rows[0].n, 4, "every client reaches the owner's database");
    } finally {
      for (const d of opened.filter((x) => !x.owner)) await d.close();
      await opened.find((d) => d.owner)?.close();
    }
    assert.ok(!existsSync(join(dir, ".s.PGSQL.5432")), "the owner removes its socket when it closes");
  });

  it("a second owner is refused while the first runs, with a message that says what to do", async () => {
    const dir = tempDir("owned");
    const first = await openEmbeddedDatabase({ dataDir: dir, mode: "own" });
    try {
      await assert.rejects(
        openEmbeddedDatabase({ dataDir: dir, mode: "own", waitMs: 300 }),
        /another process is using the embedded database in .*DATABASE_URL/,
      );
    } finally {
      await first.close();
    }
    const again = await openEmbeddedDatabase({ dataDir: dir, mode: "own" });
    assert.equal(again.owner, true, "free again once the first closed");
    await again.close();
  });
});
