// What a simulated provider of an embedded start remembers across restarts, as the real one does:
// its state as one JSON file under DATA_DIR, read at start and written shortly after each change
// (to a temporary file, then renamed over the old one, so a stop at any moment leaves the previous
// or the next state, never half of one). A twin made without a file (tests) keeps its state in memory.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

/** How long changes gather before one write: a request's burst of changes costs one write. */
const WRITE_DELAY_MS = 100;

export interface StateFile<T> {
  /** The state the file held at start; null when there was none (or it could not be read: it is set aside). */
  readonly loaded: T | null;
  /** Something changed: the state is written within WRITE_DELAY_MS. */
  changed(): void;
  /** Writes the state now (the twin stops), whatever changed by request or by a test's control. */
  flush(): void;
}

/**
 * The state file at `path` for state of `version` (another version's file, or one that is not
 * JSON, is renamed to `<path>.unreadable` and the twin starts afresh); `snapshot` answers what to
 * write, as plain JSON.
 */
export function openStateFile<T>(path: string, version: number, snapshot: () => T): StateFile<T> {
  const loaded = readState<T>(path, version);
  let timer: NodeJS.Timeout | null = null;
  const write = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify({ version, state: snapshot() }), { mode: 0o600 });
    renameSync(temporary, path);
  };
  return {
    loaded,
    changed() {
      // Unref'd: a pending write never holds the process open; a stop flushes it.
      timer ??= setTimeout(write, WRITE_DELAY_MS).unref();
    },
    flush: write,
  };
}

function readState<T>(path: string, version: number): T | null {
  if (!existsSync(path)) return null;
  try {
    const file = JSON.parse(readFileSync(path, "utf8")) as { version?: unknown; state?: T };
    if (file.version === version && file.state !== undefined) return file.state;
  } catch {
    // Not JSON: set aside below like a file of another version.
  }
  renameSync(path, `${path}.unreadable`);
  return null;
}
