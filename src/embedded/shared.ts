// What other modules need to know of the embedded database without loading PGlite (a process on
// PostgreSQL never does): its error, and whether a pool speaks to it over its socket.

export class EmbeddedDatabaseError extends Error {}

const shared = new WeakSet<object>();

/** Marks db as a pool over an embedded database's socket (src/embedded/database.ts). */
export function markSharedEmbedded(db: object): void {
  shared.add(db);
}

/** Whether db speaks to an embedded database over its socket. */
export function isSharedEmbedded(db: object): boolean {
  return shared.has(db);
}
