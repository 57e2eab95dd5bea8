// The embedded database on disk (DATA_DIR/pgdata), shared by every process that uses DATA_DIR.
//
// PGlite is PostgreSQL compiled to WebAssembly, inside one process: two processes opening the
// same directory each run their own PostgreSQL over the same files (they do not see each other's
// writes, and the files can be corrupted). So one process owns the directory: the first to bind
// DATA_DIR/.s.PGSQL.5432. The owner opens PGlite and serves it on that unix socket
// (embedded-server.ts); every client, including the owner's own Knex pool, speaks the ordinary
// PostgreSQL protocol to it through `pg`. Any other process (an operator CLI command while the
// server runs, psql -h DATA_DIR) connects to the same socket and sees the same data at once.
//
// Binding the socket is the lock: bind() fails with EADDRINUSE while the file exists; a file left
// by a process that died refuses connections (ECONNREFUSED) and is removed before binding again.
//
// Memory: WebAssembly memory never shrinks, so what PGlite touches once stays in the process.
// initdb (the first start on an empty folder) touches about 800 MB: it runs in a short-lived
// child process, and the owner then opens the initialised folder. The owner runs PostgreSQL with
// 16 MB of shared buffers instead of initdb's 128 MB (the files are read through the operating
// system's cache anyway); docs/performance.md has the measurements.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, rmSync, statSync, unlinkSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type knex from "knex";
import { EmbeddedServer } from "./server.ts";
import { Backend } from "./backend.ts";
import { pgDatabase } from "../db/pool.ts";
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from "../db/timeouts.ts";
import { EmbeddedDatabaseError, markSharedEmbedded } from "./shared.ts";

export { EmbeddedDatabaseError } from "./shared.ts";

/** PostgreSQL settings of the owner's PGlite, after PGlite's own (see the header). */
const START_PARAMS = [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"];
/** The longest initdb may take in its child process. */
const INITDB_TIMEOUT_MS = 120_000;

/**
 * Initialises an empty PostgreSQL folder in a child process, so that the memory initdb touches
 * leaves with it (see the header). A folder PostgreSQL already initialised is left alone.
 */
async function initialise(pgdata: string): Promise<void> {
  if (existsSync(join(pgdata, "PG_VERSION"))) return;
  const module = import.meta.resolve("@electric-sql/pglite");
  const script = `import { PGlite } from ${JSON.stringify(module)}; const db = await PGlite.create({ dataDir: ${JSON.stringify(pgdata)} }); await db.close();`;
  await new Promise<void>((resolve, reject) => {
    execFile(process.execPath, ["--input-type=module", "-e", script], { timeout: INITDB_TIMEOUT_MS }, (err, _stdout, stderr) => {
      if (!err) return resolve();
      const why = err.killed
        ? `it did not finish within ${INITDB_TIMEOUT_MS / 1000} s`
        : stderr.trim().split("\n").slice(-3).join(" ") || err.message;
      reject(new EmbeddedDatabaseError(`could not initialise the embedded database in ${pgdata}: ${why}`));
    });
  });
}

/** PostgreSQL's socket file name for the default port: psql -h DATA_DIR finds it. */
export const SOCKET_PORT = 5432;
const OWNER_TAG = "subbridge-embedded-owner";
/** sockaddr_un.sun_path is 108 bytes on Linux (104 on macOS), NUL included. */
const MAX_SOCKET_PATH = 103;

export interface EmbeddedDatabase {
  db: knex.Knex;
  /** True when this process opened PGlite and serves it; false when it is a client of the owner. */
  owner: boolean;
  socketPath: string;
  /** Settles once PGlite is open and served (at once for a client); rejects when it cannot be opened. */
  opened: Promise<void>;
  close(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  /**
   * "own": this process must own the database (the server: it serves other processes and keeps
   * running); waits up to waitMs for a current owner (a CLI command) to finish.
   * "share": own it if nobody does (a CLI command alone), else connect to the owner.
   */
  mode: "own" | "share";
  waitMs?: number;
  /** Called if PGlite fails while serving (its WebAssembly program exited). */
  onFatal?: (err: unknown) => void;
  /** The bounds on the pool's waits (connect, acquire, a query's answer); default DEFAULT_DATABASE_TIMEOUTS. */
  timeouts?: DatabaseTimeouts;
  /**
   * Return once the socket is claimed, and open PGlite behind it (`opened`): the server takes its
   * ports meanwhile, since opening PGlite is most of a restart. Off: return once it is open.
   */
  openInBackground?: boolean;
}

/** Connections served to other processes at once (psql, CLI commands), besides the owner's pool. */
const MAX_CLIENTS = 8;

/**
 * The least a client of the owner (an operator command) waits to connect and for a connection of
 * its pool: its startup and statements queue behind the server's work on the one session, which on
 * a loaded machine took longer than a request's 5 s bound (a CLI run beside API writes failed so).
 */
const CLIENT_WAIT_MS = 30_000;

function socketPathOf(dataDir: string): string {
  const path = join(dataDir, `.s.PGSQL.${SOCKET_PORT}`);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    throw new EmbeddedDatabaseError(
      `DATA_DIR is too long for the embedded database's unix socket (${path} is ${Buffer.byteLength(path)} bytes; at most ${MAX_SOCKET_PATH}): choose a shorter DATA_DIR`,
    );
  }
  return path;
}

/** Whether a process accepts connections on the socket ("dead": a file left by one that died). */
function probe(path: string): Promise<"live" | "dead" | "absent"> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once("connect", () => {
      socket.destroy();
      resolve("live");
    });
    socket.once("error", (err: NodeJS.ErrnoException) => resolve(err.code === "ENOENT" ? "absent" : "dead"));
  });
}

/**
 * Removes a socket file left by a process that died, under a lock (mkdir is atomic) so that two
 * processes taking over at once cannot remove each other's fresh socket: a live socket can only
 * appear once the file is gone, and only the lock's holder removes a file, after finding it dead.
 */
async function removeDeadSocket(path: string): Promise<void> {
  const lock = `${path}.takeover`;
  try {
    mkdirSync(lock);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    // Another process is taking over; a lock older than a few seconds was left by one that died.
    const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
    if (since !== undefined && Date.now() - since > 5000) rmSync(lock, { recursive: true, force: true });
    await new Promise((r) => setTimeout(r, 50));
    return;
  }
  try {
    if ((await probe(path)) === "dead") unlinkSync(path);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Binds the socket if no live process holds it; false when one does. */
async function claim(server: EmbeddedServer, path: string): Promise<boolean> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      await server.listen();
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EADDRINUSE") throw err;
      const state = await probe(path);
      if (state === "live") return false;
      if (state === "dead") await removeDeadSocket(path);
    }
  }
  throw new EmbeddedDatabaseError(`could not take over the embedded database's socket ${path}; remove it if no process uses DATA_DIR`);
}

/**
 * A pool over the socket, as for PostgreSQL. A client process (an operator command) keeps to two
 * connections, so several commands at once stay within the server's client slots.
 */
function knexOver(dataDir: string, applicationName: string, max: number, timeouts: DatabaseTimeouts): knex.Knex {
  // host = a directory: pg connects to <host>/.s.PGSQL.<port>. PGlite ignores user and database.
  const db = pgDatabase(
    { host: dataDir, port: SOCKET_PORT, user: "postgres", database: "postgres", application_name: applicationName },
    timeouts,
    max,
  );
  markSharedEmbedded(db);
  return db;
}

export async function openEmbeddedDatabase(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const { dataDir } = options;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const socketPath = socketPathOf(dataDir);
  const deadline = Date.now() + (options.waitMs ?? 0);
  const timeouts = options.timeouts ?? DEFAULT_DATABASE_TIMEOUTS;
  for (;;) {
    const server = new EmbeddedServer({
      path: socketPath,
      maxClients: MAX_CLIENTS,
      ownerTag: OWNER_TAG,
      idleInTransactionMs: 5000,
      statementMs: timeouts.statementMs,
      onFatal: (err) => options.onFatal?.(err),
    });
    if (await claim(server, socketPath)) {
      let pglite: Backend | undefined;
      const opened = (async () => {
        try {
          const pgdata = join(dataDir, "pgdata");
          await initialise(pgdata);
          pglite = await Backend.open({ dataDir: pgdata, startParams: START_PARAMS, onFatal: (err) => options.onFatal?.(err) });
        } catch (err) {
          await server.stop(0);
          throw err;
        }
        server.attach(pglite);
      })();
      // Its failure is the awaiting caller's (openServices); close() must not meet it unhandled.
      opened.catch(() => undefined);
      if (!options.openInBackground) await opened;
      const db = knexOver(dataDir, OWNER_TAG, 10, timeouts);
      return {
        db,
        owner: true,
        socketPath,
        opened,
        async close() {
          await db.destroy();
          // An open that failed has already stopped the server; one under way is waited for.
          const open = await opened.then(
            () => true,
            () => false,
          );
          if (!open) return;
          await server.stop(2000);
          await pglite?.close();
        },
      };
    }
    if (options.mode === "share") {
      const waits = { ...timeouts, connectMs: Math.max(timeouts.connectMs, CLIENT_WAIT_MS), acquireMs: Math.max(timeouts.acquireMs, CLIENT_WAIT_MS) };
      const db = knexOver(dataDir, "subbridge-client", 2, waits);
      return { db, owner: false, socketPath, opened: Promise.resolve(), close: () => db.destroy() };
    }
    if (Date.now() >= deadline) {
      throw new EmbeddedDatabaseError(
        `another process is using the embedded database in ${dataDir} (a SubBridge server, or an operator command still running). ` +
          "One server per DATA_DIR: stop the other server or give this one its own DATA_DIR; to run several processes on one database, set DATABASE_URL to PostgreSQL.",
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
