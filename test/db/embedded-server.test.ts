// The socket server that shares one PGlite among PostgreSQL clients (src/embedded/server.ts):
// a client's batch and a client's transaction are never interleaved with another client's work,
// and a statement can be stopped (its client's CancelRequest, or the statement bound).
import assert from "node:assert/strict";
import { join } from "node:path";
import { connect } from "node:net";
import pg from "pg";
import { EmbeddedServer } from "../../src/embedded/server.ts";
import { Backend } from "../../src/embedded/backend.ts";
import { tempDir } from "../helpers/processes.ts";

describe("embedded database server (PGlite on a unix socket)", function () {
  this.timeout(60_000);
  let db: Backend;
  let server: EmbeddedServer;
  let dir: string;
  const clients: pg.Client[] = [];

  before(async () => {
    dir = tempDir("socket");
    // On disk: a stopped statement ends PGlite's thread, and the database is opened again from its folder.
    db = await Backend.open({ dataDir: join(dir, "pgdata"), onFatal: () => undefined });
    server = new EmbeddedServer({
      path: join(dir, ".s.PGSQL.5432"),
      maxClients: 3,
      ownerTag: "owner",
      idleInTransactionMs: 1000,
      statementMs: 3000,
      onFatal: () => undefined,
    });
    await server.listen();
    server.attach(db);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.end().catch(() => undefined)));
    while (server.clientCount > 0) await new Promise((r) => setTimeout(r, 10));
  });
  after(async () => {
    await server.stop(0);
    await db.close();
  });

  async function client(applicationName = "test"): Promise<pg.Client> {
    const c = new pg.Client({ host: dir, port: 5432, application_name: applicationName });
    c.on("error", () => undefined);
    await c.connect();
    clients.push(c);
    return c;
  }

  it("keeps each client's extended-protocol batch together (a large parameter arrives in several reads)", async () => {
    const a = await client();
    const b = await client();
    const big = "x".repeat(2_000_000);
    for (let i = 0; i < 10; i++) {
      const [ra, rb] = await Promise.all([a.query("select length($1::text) as n", [big]), b.query("select $1::int + 1 as n", [i])]);
      assert.equal(ra.rows[0].n, 2_000_000);
      assert.equal(rb.rows[0].n, i + 1);
    }
  });

  it("runs another client's statements only between transactions", async () => {
    const a = await client();
    const b = await client();
    await a.query("create table if not exists ledger (n int)");
    await a.query("begin");
    await a.query("insert into ledger values (1)");
    let bDone = false;
    const read = b.query("select count(*)::int as n from ledger").then((r) => {
      bDone = true;
      return r.rows[0].n as number;
    });
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(bDone, false, "b waits while a's transaction is open");
    await a.query("rollback");
    assert.equal(await read, 0, "b never saw a's uncommitted row");
  });

  it("disconnects a client idle inside a transaction while another waits; its work rolls back", async () => {
    const a = await client();
    const b = await client();
    const ended = new Promise<Error>((resolve) => a.on("error", resolve));
    await a.query("create table if not exists held (n int)");
    await a.query("begin");
    await a.query("insert into held values (1)");
    const count = await b.query("select count(*)::int as n from held");
    assert.equal(count.rows[0].n, 0);
    assert.match((await ended).message, /idle-in-transaction/);
  });

  /** A CancelRequest as libpq sends it: a connection of its own, closed by the server. */
  async function cancelRequest(processId: number, secretKey: number) {
    const packet = Buffer.alloc(16);
    packet.writeInt32BE(16, 0);
    packet.writeInt32BE(80877102, 4);
    packet.writeInt32BE(processId, 8);
    packet.writeInt32BE(secretKey, 12);
    await new Promise<void>((resolve) => {
      const socket = connect(join(dir, ".s.PGSQL.5432"), () => socket.end(packet));
      socket.on("close", () => resolve());
      socket.on("error", () => resolve());
    });
  }

  it("stops a statement past the statement bound with 57014 and goes on serving what was committed", async () => {
    const a = await client();
    const b = await client();
    await a.query("create table if not exists kept (n int)");
    await a.query("insert into kept values (1)");
    const waiting = b.query("select count(*)::int as n from kept");
    await assert.rejects(
      a.query("select pg_sleep(60)"),
      (err: Error & { code?: string }) => err.code === "57014" && /statement timeout/.test(err.message),
    );
    assert.equal((await waiting).rows[0].n, 1, "the waiting client was served once the statement stopped");
    assert.equal((await a.query("select count(*)::int as n from kept")).rows[0].n, 1, "the stopped client's connection still works");
  });

  it("honours a CancelRequest for the client whose statement runs; its open transaction rolls back", async () => {
    const a = await client();
    const b = await client();
    const ids = a as unknown as { processID: number; secretKey: number };
    const other = b as unknown as { processID: number; secretKey: number };
    assert.notEqual(ids.processID, other.processID, "each client has a process id of its own");
    await a.query("create table if not exists cancelled (n int)");
    await a.query("begin");
    await a.query("insert into cancelled values (1)");
    let settled = false;
    const sleeping = a.query("select pg_sleep(2.5)").finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 300));
    await cancelRequest(other.processID, other.secretKey); // names b, for which nothing runs
    await cancelRequest(ids.processID, ids.secretKey + 1); // a wrong key
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(settled, false, "neither stopped a's statement");
    await cancelRequest(ids.processID, ids.secretKey);
    await assert.rejects(sleeping, (err: Error & { code?: string }) => err.code === "57014" && /user request/.test(err.message));
    await a.query("rollback");
    assert.equal((await b.query("select count(*)::int as n from cancelled")).rows[0].n, 0, "a's uncommitted row is gone");
  });

  it("refuses more clients than allowed with SQLSTATE 53300, the owner's connections apart", async () => {
    for (let i = 0; i < 3; i++) await client();
    await assert.rejects(client(), (err: Error & { code?: string }) => err.code === "53300");
    const owner = await client("owner");
    assert.equal((await owner.query("select 1 as one")).rows[0].one, 1);
  });
});
