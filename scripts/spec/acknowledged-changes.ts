// Reviewed breaking-classified changes that break no working client: the spec is corrected to say
// what the server already did (it always refused token:create on mint; it now also documents the
// size it always effectively had), or an issue mandated the fix of a defect in a new refusal. Each
// entry names one change exactly as the report words it, with its reason, and is reviewed like
// code. It is not a general waiver: an entry matches one sentence, and entries that match nothing
// in a diff are reported, so a stale or mistyped entry is seen.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

export const ACKNOWLEDGED_FILE = "spec/acknowledged-changes.yaml";

export interface Acknowledgment {
  /** The report's sentence for the change, exactly ("POST /v1/tokens (create_token): request body: ..."). */
  change: string;
  /** Why no working client breaks. */
  reason: string;
}

export function loadAcknowledgments(root: string): Acknowledgment[] {
  const file = join(root, ACKNOWLEDGED_FILE);
  if (!existsSync(file)) return [];
  const entries = (parse(readFileSync(file, "utf8")) ?? []) as unknown;
  if (!Array.isArray(entries)) throw new Error(`${ACKNOWLEDGED_FILE} must be a list`);
  return entries.map((e, i) => {
    const { change, reason } = (e ?? {}) as Partial<Acknowledgment>;
    if (typeof change !== "string" || !change.trim() || typeof reason !== "string" || !reason.trim()) {
      throw new Error(`${ACKNOWLEDGED_FILE} entry ${i + 1} needs both change and reason`);
    }
    return { change: change.trim(), reason: reason.trim() };
  });
}
