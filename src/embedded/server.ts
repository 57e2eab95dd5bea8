// Serves one PGlite instance (a single PostgreSQL session) to several PostgreSQL clients over a
// unix socket: the server's own Knex pool, operator CLI runs and psql.
//
// Why not PGLiteSocketServer from @electric-sql/pglite-socket: it queues work one protocol message
// at a time and keeps a client's messages together only once PostgreSQL reports a transaction
// block. A query with parameters is several messages (Parse, Bind, Describe, Execute, Sync); when
// a client's batch arrives in two reads (a large parameter), another client's Parse can run in
// between and replace the unnamed statement, so the first client's Bind runs the other client's
// statement with its own values (reproduced with pglite-socket 0.2.17: a 2 MB text bound to
// another client's `$1::int`). Here a client keeps the session from its first message until
// PostgreSQL answers ReadyForQuery with the status "idle" (I): the end of a query, a batch ended
// by Sync, or the COMMIT/ROLLBACK of a transaction. Until then the other clients wait.
//
// PGlite runs PostgreSQL's single-user backend: a FATAL error ends the WebAssembly program, after
// which the instance is dead (found with 0.5.14: a startup packet without a user name exits(1), a
// message of an unknown type such as 'p' or 'Y' never returns). So no client bytes reach it
// unchecked: the startup packet is replaced by a fixed one (PGlite ignores the user and database
// names anyway: every client is "postgres" on database "postgres"), and only the message types of
// the simple and extended query protocols (and COPY) are passed on; anything else is refused.
//
// Everything on the socket shares one PostgreSQL session: SET, temporary tables, named prepared
// statements and session advisory locks are common to every client (Knex uses none of them).
//
// PGlite runs on a thread of its own (backend.ts), so a long statement never stops this process's
// event loop. A statement can be stopped: each client gets its own BackendKeyData, so a
// CancelRequest names its client, and a batch running longer than statementMs is stopped as
// statement_timeout would stop it. Stopping ends PGlite's thread and opens the database again;
// the client that held the session gets 57014, and its open transaction is gone (rolled back).
import { chmodSync } from "node:fs";
import { randomInt } from "node:crypto";
import { createServer, type Server, type Socket } from "node:net";
import { Closed, Interrupted, type Backend } from "./backend.ts";
import {
  CANCEL_REQUEST,
  errorResponse,
  expectedReadies,
  finalReadyStatus,
  FRONTEND_TYPES,
  GSSENC_REQUEST,
  MAX_MESSAGE,
  MAX_STARTUP_PACKET,
  queryMessage,
  readyForQuery,
  SSL_REQUEST,
  STARTUP,
  startupParameters,
  SYNC,
  withBackendKey,
} from "./pg-wire.ts";

export interface EmbeddedServerOptions {
  /** Unix socket path (…/.s.PGSQL.5432). */
  path: string;
  /**
   * Connections from other processes (CLI, psql) served at once; the next one is refused with
   * SQLSTATE 53300 "too many clients". The owner's own pool is counted apart (see ownerTag).
   */
  maxClients: number;
  /** application_name the owner's own pool connects with: its connections never use a client slot. */
  ownerTag: string;
  /** Called once if PGlite fails (its WebAssembly program exited): every session is closed. */
  onFatal: (err: unknown) => void;
  /**
   * A client holding the session (in a transaction, or mid-batch) that sends nothing for this
   * long while others wait is disconnected (its transaction rolls back), as PostgreSQL's
   * idle_in_transaction_session_timeout would: a psql left in BEGIN must not stop the server.
   */
  idleInTransactionMs: number;
  /** A batch running longer is stopped with 57014, as PostgreSQL's statement_timeout would stop it. */
  statementMs: number;
}

interface Session {
  id: number;
  socket: Socket;
  buffer: Buffer;
  started: boolean;
  owner: boolean;
  /** Complete messages received and not yet run. */
  pending: Buffer[];
  closed: boolean;
  lastActivity: number;
  /** The secret of this client's BackendKeyData (its process id is its id). */
  cancelKey: number;
}

/** The batch PGlite is running, and why it is being stopped (null while it is not). */
interface Running {
  session: Session;
  reason: string | null;
}

export class EmbeddedServer {
  private server: Server | null = null;
  private db: Backend | null = null;
  private running: Running | null = null;
  private readonly sessions = new Set<Session>();
  /** The session that has the PostgreSQL session (mid-batch or in a transaction). */
  private holder: Session | null = null;
  private readonly waiting: Session[] = [];
  private pumping: Promise<void> | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private nextId = 1;
  private stopping = false;

  constructor(private readonly options: EmbeddedServerOptions) {}

  /** Listens on the socket (mode 0600: no password protects it). Connections wait until attach(). */
  async listen(): Promise<void> {
    const server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.options.path, () => {
        server.off("error", reject);
        resolve();
      });
    });
    server.on("error", () => undefined);
    try {
      chmodSync(this.options.path, 0o600);
    } catch (err) {
      server.close();
      throw err;
    }
    this.server = server;
  }

  /** Starts serving the database: queued connections proceed. */
  attach(db: Backend): void {
    this.db = db;
    this.schedule();
  }

  /** Connections of other processes (not the owner's pool). */
  get clientCount(): number {
    let n = 0;
    for (const s of this.sessions) if (s.started && !s.owner && !s.closed) n++;
    return n;
  }

  /**
   * Stops listening (the socket file goes at once), lets clients that are busy or were active in
   * the last second finish for up to graceMs (a CLI between two statements), then disconnects the
   * rest (SQLSTATE 57P01; an open transaction rolls back) and waits for the queue to drain.
   */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    const server = this.server;
    this.server = null;
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    const deadline = Date.now() + graceMs;
    const inUse = (s: Session) => !s.closed && (s === this.holder || s.pending.length > 0 || Date.now() - s.lastActivity < 1000);
    while (Date.now() < deadline && [...this.sessions].some(inUse)) await new Promise((r) => setTimeout(r, 25));
    for (const s of this.sessions) this.fatal(s, "57P01", "terminating connection: the process that owns the embedded database is stopping");
    while (this.pumping) await this.pumping;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.db = null; // detached: nothing reaches the database after the stop, so its owner may close it
    await closed;
  }

  private accept(socket: Socket) {
    if (this.stopping) {
      socket.destroy();
      return;
    }
    const session: Session = {
      id: this.nextId++,
      socket,
      buffer: Buffer.alloc(0),
      started: false,
      owner: false,
      pending: [],
      closed: false,
      lastActivity: Date.now(),
      cancelKey: randomInt(1, 2 ** 31),
    };
    this.sessions.add(session);
    socket.on("data", (chunk: Buffer) => this.receive(session, chunk));
    socket.on("error", () => undefined);
    socket.on("close", () => this.closeSession(session));
  }

  private receive(s: Session, chunk: Buffer) {
    if (s.closed) return;
    s.lastActivity = Date.now();
    s.buffer = s.buffer.length ? Buffer.concat([s.buffer, chunk]) : chunk;
    let queued = false;
    while (!s.closed) {
      if (!s.started) {
        if (s.buffer.length < 8) break;
        const length = s.buffer.readInt32BE(0);
        if (length < 8 || length > MAX_STARTUP_PACKET) return this.fatal(s, "08P01", "invalid startup packet length");
        if (s.buffer.length < length) break;
        const packet = Buffer.from(s.buffer.subarray(0, length));
        s.buffer = s.buffer.subarray(length);
        const code = packet.readInt32BE(4);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          s.socket.write("N"); // no encryption on a local socket
          continue;
        }
        if (code === CANCEL_REQUEST) {
          // Answered by closing the connection, as PostgreSQL does; honoured when it names the
          // client whose batch is running.
          if (length === 16) this.cancel(packet.readInt32BE(8), packet.readInt32BE(12));
          s.socket.destroy();
          this.closeSession(s);
          return;
        }
        if (code >>> 16 !== 3) return this.fatal(s, "0A000", `unsupported frontend protocol ${code >>> 16}.${code & 0xffff}`);
        s.owner = startupParameters(packet).get("application_name") === this.options.ownerTag;
        if (!s.owner && this.clientCount >= this.options.maxClients) {
          return this.fatal(
            s,
            "53300",
            `sorry, too many clients already (the embedded database serves ${this.options.maxClients} connections besides its owner's)`,
            "Close another psql or CLI session, or set DATABASE_URL to use PostgreSQL.",
          );
        }
        s.started = true;
        s.pending.push(STARTUP);
        queued = true;
        continue;
      }
      if (s.buffer.length < 5) break;
      if (!FRONTEND_TYPES.has(s.buffer[0]!)) return this.fatal(s, "08P01", `invalid frontend message type ${s.buffer[0]}`);
      const length = s.buffer.readInt32BE(1);
      if (length < 4 || length > MAX_MESSAGE) return this.fatal(s, "08P01", "invalid message length");
      if (s.buffer.length < 1 + length) break;
      s.pending.push(Buffer.from(s.buffer.subarray(0, 1 + length)));
      s.buffer = s.buffer.subarray(1 + length);
      queued = true;
    }
    if (queued) {
      if (s !== this.holder && !this.waiting.includes(s)) this.waiting.push(s);
      this.schedule();
    }
  }

  private schedule() {
    if (this.pumping || !this.db) return;
    this.pumping = this.pump().finally(() => {
      this.pumping = null;
      // Work that arrived while the last batch was being answered.
      if (this.holder ? this.holder.pending.length > 0 : this.waiting.length > 0) this.schedule();
      else this.watchIdleHolder();
    });
  }

  private async pump(): Promise<void> {
    const db = this.db!;
    for (;;) {
      let s: Session | undefined;
      if (this.holder) {
        s = this.holder;
        if (s.closed) {
          try {
            await this.release(db, s);
          } catch (err) {
            return this.fail(err);
          }
          continue;
        }
        if (s.pending.length === 0) return; // its next message is due: the others wait
      } else {
        s = this.waiting.shift();
        if (!s) return;
        if (s.closed || s.pending.length === 0) continue;
        this.holder = s;
      }
      const batch = s.pending.splice(0);
      const terminate = batch.findIndex((m) => m[0] === 0x58); // 'X': never handed to PGlite
      const messages = terminate === -1 ? batch : batch.slice(0, terminate);
      // The startup packet is answered alone (PGlite reads a packet starting with 0 as one).
      const runs = messages[0]?.[0] === 0 ? [messages[0], Buffer.concat(messages.slice(1))] : [Buffer.concat(messages)];
      let status: string | null = null;
      try {
        for (const input of runs) {
          if (!input || input.length === 0) continue;
          let output = await this.execute(db, s, input);
          if (input === messages[0] && input[0] === 0) output = withBackendKey(output, s.id, s.cancelKey);
          if (!s.closed && s.socket.writable && output.length) s.socket.write(output);
          status = finalReadyStatus(output);
        }
      } catch (err) {
        return this.fail(err);
      }
      if (terminate !== -1) {
        s.socket.end();
        this.closeSession(s);
      }
      if (s.closed) {
        try {
          await this.release(db, s);
        } catch (err) {
          return this.fail(err);
        }
      } else if (status === "I") {
        this.holder = null;
        if (s.pending.length) this.waiting.push(s);
      }
    }
  }

  /** Runs a batch for `s`, stopped past statementMs or on its client's CancelRequest. */
  private async execute(db: Backend, s: Session, input: Buffer): Promise<Buffer> {
    await db.whenReady();
    const running: Running = { session: s, reason: null };
    this.running = running;
    const timer = setTimeout(() => this.interrupt(running, "statement timeout"), this.options.statementMs);
    try {
      return await db.run(input);
    } catch (err) {
      if (!(err instanceof Interrupted) || running.reason === null) throw err;
      const answer = [errorResponse("ERROR", "57014", `canceling statement due to ${running.reason}`), readyForQuery("I")];
      return Buffer.concat(Array.from({ length: Math.max(1, expectedReadies(input)) }, () => answer).flat());
    } finally {
      clearTimeout(timer);
      if (this.running === running) this.running = null;
    }
  }

  /** A CancelRequest: honoured when it names the client whose batch runs, else dropped (as PostgreSQL may). */
  private cancel(processId: number, secretKey: number) {
    const running = this.running;
    if (running && running.session.id === processId && running.session.cancelKey === secretKey) this.interrupt(running, "user request");
  }

  private interrupt(running: Running, reason: string) {
    if (this.running !== running || running.reason !== null || !this.db) return;
    running.reason = reason;
    this.db.interrupt().catch((err: unknown) => this.fail(err));
  }

  /**
   * A client went away holding the session: end what it left (an unfinished batch is aborted,
   * then the Sync ends the extended-protocol state, then an open transaction rolls back).
   */
  private async release(db: Backend, s: Session) {
    if (this.holder === s) {
      for (const input of [queryMessage("ROLLBACK"), SYNC]) await this.execute(db, s, input);
      if (await db.isInTransaction()) await this.execute(db, s, queryMessage("ROLLBACK"));
      this.holder = null;
    }
  }

  /** PGlite failed: nothing more can be served. */
  private fail(err: unknown) {
    // A batch refused because the owner closed the database while stopping is the stop, not a failure.
    const closing = err instanceof Closed && this.stopping;
    this.db = null;
    this.holder = null;
    this.waiting.length = 0;
    for (const s of this.sessions) this.fatal(s, "XX000", "the embedded database stopped working; see the owner process's log");
    this.server?.close();
    this.server = null;
    if (!closing) this.options.onFatal(err);
  }

  private closeSession(s: Session) {
    if (!s.closed) {
      s.closed = true;
      s.pending = [];
    }
    this.sessions.delete(s);
    const i = this.waiting.indexOf(s);
    if (i !== -1) this.waiting.splice(i, 1);
    if (this.holder === s) this.schedule();
  }

  private fatal(s: Session, code: string, message: string, hint?: string) {
    if (s.socket.writable) s.socket.end(errorResponse("FATAL", code, message, hint));
    setTimeout(() => s.socket.destroy(), 1000).unref();
    this.closeSession(s);
  }

  /** Disconnects a holder that stays silent while other clients wait for the session. */
  private watchIdleHolder() {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const holder = this.holder;
    if (!holder || this.waiting.length === 0) return;
    const due = holder.lastActivity + this.options.idleInTransactionMs - Date.now();
    this.idleTimer = setTimeout(
      () => {
        this.idleTimer = null;
        if (this.holder !== holder || holder.pending.length > 0) return;
        if (Date.now() - holder.lastActivity < this.options.idleInTransactionMs) return this.watchIdleHolder();
        this.fatal(
          holder,
          "25P03",
          `terminating connection due to idle-in-transaction timeout (${Math.round(this.options.idleInTransactionMs / 1000)} s while another client waited for the embedded database)`,
        );
      },
      Math.max(due, 0),
    );
    this.idleTimer.unref();
  }
}
