// The few pieces of the PostgreSQL wire protocol (v3) the embedded database server needs:
// https://www.postgresql.org/docs/current/protocol-message-formats.html
export const SSL_REQUEST = 80877103;
export const GSSENC_REQUEST = 80877104;
export const CANCEL_REQUEST = 80877102;
export const MAX_STARTUP_PACKET = 10_000;
export const MAX_MESSAGE = 0x3fffffff;
/** Bind, Close, CopyData, CopyDone, CopyFail, Describe, Execute, Flush, FunctionCall, Parse, Query, Sync, Terminate. */
export const FRONTEND_TYPES = new Set([..."BCdcfDEHFPQSX"].map((c) => c.charCodeAt(0)));

/** A PostgreSQL ErrorResponse ('E'). */
export function errorResponse(severity: "FATAL" | "ERROR", code: string, message: string, hint?: string): Buffer {
  const fields: Buffer[] = [];
  const field = (type: string, value: string) => fields.push(Buffer.from(type, "ascii"), Buffer.from(value, "utf8"), Buffer.alloc(1));
  field("S", severity);
  field("V", severity);
  field("C", code);
  field("M", message);
  if (hint) field("H", hint);
  fields.push(Buffer.alloc(1));
  const body = Buffer.concat(fields);
  const head = Buffer.alloc(5);
  head.write("E", 0, "ascii");
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

/** A simple-query ('Q') message. */
export function queryMessage(sql: string): Buffer {
  const text = Buffer.from(`${sql}\0`, "utf8");
  const head = Buffer.alloc(5);
  head.write("Q", 0, "ascii");
  head.writeInt32BE(text.length + 4, 1);
  return Buffer.concat([head, text]);
}

export const SYNC = Buffer.from([0x53, 0, 0, 0, 4]);

/** The startup packet PGlite is given for every client (protocol 3.0, user and database postgres). */
export const STARTUP = (() => {
  const body = Buffer.from("user\0postgres\0database\0postgres\0\0", "utf8");
  const head = Buffer.alloc(8);
  head.writeInt32BE(body.length + 8, 0);
  head.writeInt32BE(196608, 4);
  return Buffer.concat([head, body]);
})();

/** The startup packet's parameters (user, database, application_name, ...). */
export function startupParameters(packet: Buffer): Map<string, string> {
  const params = new Map<string, string>();
  const parts = packet.subarray(8).toString("utf8").split("\0");
  for (let i = 0; i + 1 < parts.length && parts[i] !== ""; i += 2) params.set(parts[i]!, parts[i + 1]!);
  return params;
}

/**
 * The transaction status of the last message of a backend output when that message is
 * ReadyForQuery ('I' idle, 'T' in a transaction, 'E' in a failed one), else null (the client's
 * batch is not finished: more messages of it are due).
 */
export function finalReadyStatus(output: Buffer): string | null {
  const { messages, complete } = messagesOf(output);
  const last = messages.at(-1);
  if (!complete || !last || last.type !== 0x5a /* Z */) return null;
  return String.fromCharCode(output[last.at + 5]!);
}

/** ReadyForQuery ('Z') with a transaction status. */
export function readyForQuery(status: "I" | "T" | "E"): Buffer {
  return Buffer.from([0x5a, 0, 0, 0, 5, status.charCodeAt(0)]);
}

/** The whole messages at the start of `data` (type, offset, length field), and whether nothing follows them. */
function messagesOf(data: Buffer): { messages: { type: number; at: number; length: number }[]; complete: boolean } {
  const messages: { type: number; at: number; length: number }[] = [];
  let offset = 0;
  while (offset + 5 <= data.length) {
    const length = data.readInt32BE(offset + 1);
    if (length < 4 || offset + 1 + length > data.length) break;
    messages.push({ type: data[offset]!, at: offset, length });
    offset += 1 + length;
  }
  return { messages, complete: offset === data.length };
}

/** How many answers ending in ReadyForQuery a client's batch expects: one per Query and per Sync. */
export function expectedReadies(input: Buffer): number {
  return messagesOf(input).messages.filter((m) => m.type === 0x51 /* Q */ || m.type === 0x53 /* S */).length;
}

/**
 * The backend's answer to a startup with its BackendKeyData ('K') replaced: every client of the
 * shared session gets its own process id and key, so a CancelRequest names the client it is for.
 */
export function withBackendKey(output: Buffer, processId: number, secretKey: number): Buffer {
  const copy = Buffer.from(output);
  for (const m of messagesOf(copy).messages) {
    if (m.type !== 0x4b /* K */ || m.length !== 12) continue;
    copy.writeInt32BE(processId, m.at + 5);
    copy.writeInt32BE(secretKey, m.at + 9);
  }
  return copy;
}
