// A write a unique index guards: two requests that both passed the "is it taken" check race, and
// the index lets one through. The loser answers `refusal` (the same 422 the check gives) instead
// of a 500. The caller's transaction is aborted by the failed statement and rolls back as usual.
import type { ApiError } from "../errors.ts";

const UNIQUE_VIOLATION = "23505";

/** Whether `err` is a statement refused by a unique index (`constraint`, when named). */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const { code, constraint: broken } = err as { code?: string; constraint?: string };
  return code === UNIQUE_VIOLATION && (constraint === undefined || broken === constraint);
}

export async function uniquely<T>(write: PromiseLike<T>, refusal: () => ApiError, constraint?: string): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (isUniqueViolation(err, constraint)) throw refusal();
    throw err;
  }
}
