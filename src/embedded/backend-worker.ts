// The thread PGlite runs on (see backend.ts): it answers the embedded server's protocol batches one
// at a time. PGlite runs a statement to its end without yielding, so on the server's own thread a
// long statement would stop every request; here it stops only this thread, which the server ends
// to cancel the statement.
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";

export type BackendCall = { kind: "run"; input: Uint8Array } | { kind: "in-transaction" } | { kind: "close" };
export type BackendRequest = BackendCall & { id: number };
export interface CallAnswer {
  id: number;
  output?: Uint8Array;
  value?: boolean;
  error?: string;
}
export type BackendAnswer = { kind: "ready" } | CallAnswer;

const port = parentPort!;
const { dataDir, startParams } = workerData as { dataDir?: string; startParams?: string[] };
const db = await PGlite.create({ ...(dataDir ? { dataDir } : {}), ...(startParams ? { startParams } : {}) });

/** Set by the close request: a batch that arrives after it is refused, never run on a closed PGlite. */
let closed = false;

async function answer(request: BackendRequest): Promise<CallAnswer> {
  if (closed) return { id: request.id, error: "the embedded database is closed" };
  if (request.kind === "in-transaction") return { id: request.id, value: db.isInTransaction() };
  if (request.kind === "close") {
    closed = true;
    await db.close();
    return { id: request.id };
  }
  const chunks: Uint8Array[] = [];
  await db.runExclusive(() => db.execProtocolRawStream(request.input, { onRawData: (data) => chunks.push(data.slice()) }));
  return { id: request.id, output: Buffer.concat(chunks) };
}

port.on("message", (request: BackendRequest) => {
  answer(request).then(
    (reply) => port.postMessage(reply),
    (err: unknown) => port.postMessage({ id: request.id, error: err instanceof Error ? err.message : String(err) } satisfies CallAnswer),
  );
});
port.postMessage({ kind: "ready" } satisfies BackendAnswer);
