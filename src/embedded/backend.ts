// PGlite on a thread of its own (backend-worker.ts), as the embedded server's backend. A statement
// that must stop (a client's CancelRequest, or one running past the statement bound) stops the
// thread: PGlite cannot be interrupted otherwise. The database is then opened again from its
// folder, as PostgreSQL recovers after a backend dies; only the interrupted client's work is lost,
// since one client at a time holds the session (server.ts) and the others are between transactions.
import { Worker } from "node:worker_threads";
import type { BackendAnswer, BackendCall, BackendRequest, CallAnswer } from "./backend-worker.ts";

/** The worker's module: .js in the compiled build, .ts where tsx runs the sources. */
const COMPILED = import.meta.url.endsWith(".js");
const WORKER = new URL(`./backend-worker${COMPILED ? ".js" : ".ts"}`, import.meta.url);

/**
 * A new thread running the worker module. Node 20 does not carry tsx's loader hooks into worker
 * threads, so from the sources the thread registers tsx itself before importing the module.
 */
function spawnWorker(workerData: unknown): Worker {
  if (COMPILED) return new Worker(WORKER, { workerData });
  const bootstrap = `import { register } from ${JSON.stringify(import.meta.resolve("tsx/esm/api"))}; register(); await import(${JSON.stringify(WORKER.href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), { workerData });
}

/** What `run` rejects with when `interrupt` stopped the batch. */
export class Interrupted extends Error {}

/** What a call rejects with once `close` was asked for: PGlite is never reached after its close. */
export class Closed extends Error {}

export interface BackendOptions {
  /** PGlite's folder; in memory when absent (tests). */
  dataDir?: string;
  startParams?: string[];
  /** The thread died on its own (PGlite's WebAssembly program exited): nothing more can be served. */
  onFatal: (err: unknown) => void;
}

interface Pending {
  resolve: (answer: CallAnswer) => void;
  reject: (err: unknown) => void;
}

export class Backend {
  private worker: Worker | null = null;
  private ready: Promise<void>;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closing = false;
  /** Opening the database (at first, or again after an interrupt): nothing runs, so nothing to stop. */
  private starting = true;

  private constructor(private readonly options: BackendOptions) {
    this.ready = this.start();
  }

  static async open(options: BackendOptions): Promise<Backend> {
    const backend = new Backend(options);
    await backend.ready;
    return backend;
  }

  private start(): Promise<void> {
    this.starting = true;
    const worker = spawnWorker({ dataDir: this.options.dataDir, startParams: this.options.startParams });
    this.worker = worker;
    return new Promise<void>((resolve, reject) => {
      let started = false;
      worker.on("message", (answer: BackendAnswer) => {
        if ("kind" in answer) {
          started = true;
          this.starting = false;
          return resolve();
        }
        const waiting = this.pending.get(answer.id);
        this.pending.delete(answer.id);
        if (answer.error !== undefined) waiting?.reject(this.closing ? new Closed(answer.error) : new Error(answer.error));
        else waiting?.resolve(answer);
      });
      worker.on("error", (err) => {
        if (!started) return reject(err);
        this.fail(worker, err);
      });
      worker.on("exit", (code) => {
        if (!started) return reject(new Error(`the embedded database's thread exited (${code}) before it opened`));
        this.fail(worker, new Error(`the embedded database's thread exited (${code})`));
      });
    });
  }

  /** The thread ended without being asked to: every waiting call fails, and the owner is told once. */
  private fail(worker: Worker, err: unknown) {
    if (worker !== this.worker) return;
    for (const waiting of this.pending.values()) waiting.reject(err);
    this.pending.clear();
    if (this.closing) return; // the thread ending while it closes is the close
    this.worker = null;
    this.options.onFatal(err);
  }

  private send(worker: Worker, request: BackendCall): Promise<CallAnswer> {
    const id = this.nextId++;
    return new Promise<CallAnswer>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ ...request, id } satisfies BackendRequest);
    });
  }

  private async call(request: BackendCall): Promise<CallAnswer> {
    if (this.closing) throw new Closed("the embedded database is closed");
    await this.ready;
    if (this.closing) throw new Closed("the embedded database is closed");
    const worker = this.worker;
    if (!worker) throw new Error("the embedded database has stopped");
    return this.send(worker, request);
  }

  /** Resolves once the database is open (a batch's time is counted from then). */
  whenReady(): Promise<void> {
    return this.ready;
  }

  /** PostgreSQL's answer to a batch of protocol messages. */
  async run(input: Buffer): Promise<Buffer> {
    const answer = await this.call({ kind: "run", input });
    return Buffer.from(answer.output!.buffer, answer.output!.byteOffset, answer.output!.byteLength);
  }

  async isInTransaction(): Promise<boolean> {
    return (await this.call({ kind: "in-transaction" })).value === true;
  }

  /**
   * Stops what runs (its `run` rejects with Interrupted) and opens the database again; calls made
   * meanwhile wait for it.
   */
  async interrupt(): Promise<void> {
    const worker = this.worker;
    if (!worker || this.closing || this.starting) return;
    this.worker = null;
    const stopped = [...this.pending.values()];
    this.pending.clear();
    await worker.terminate();
    for (const waiting of stopped) waiting.reject(new Interrupted("the statement was interrupted"));
    this.ready = this.start();
    await this.ready;
  }

  /**
   * Closes PGlite and ends the thread. From the first moment no call reaches PGlite (they reject
   * with Closed), and the thread ending is not a failure.
   */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await this.ready.catch(() => undefined);
    const worker = this.worker;
    if (worker) {
      await this.send(worker, { kind: "close" }).catch(() => undefined);
      await worker.terminate();
    }
    this.worker = null;
    for (const waiting of this.pending.values()) waiting.reject(new Closed("the embedded database is closed"));
    this.pending.clear();
  }
}
