// What the log never carries: a property named like a credential (secret-keys.ts, the rule the
// activity log applies too), at any depth of plain objects and arrays, is written as "[redacted]".
// Nothing logs such values today; this is defence in depth against a future
// `logger.info({ headers })`. It runs on every log line (pino formatters.log), so it copies only
// what it changes: a line without such a property costs one pass over its keys (pino's own
// path-based redact costs more per line, on every line).
import { isSecretKey } from "./secret-keys.ts";

const MAX_DEPTH = 8;
export const REDACTED = "[redacted]";

function redact(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item = redact(value[i], depth + 1);
      if (item !== value[i]) (copy ??= value.slice())[i] = item;
    }
    return copy ?? value;
  }
  const proto = Object.getPrototypeOf(value);
  // Errors, dates, buffers: pino's serializers write them (an error's own fields included).
  if (proto !== Object.prototype && proto !== null) return value;
  let copy: Record<string, unknown> | null = null;
  for (const key of Object.keys(value)) {
    const current = (value as Record<string, unknown>)[key];
    const next = isSecretKey(key) ? REDACTED : redact(current, depth + 1);
    if (next !== current) (copy ??= { ...(value as Record<string, unknown>) })[key] = next;
  }
  return copy ?? value;
}

/** The log object with every credential-named property redacted (the same object when none). */
export function redactLogObject(object: Record<string, unknown>): Record<string, unknown> {
  return redact(object, 0) as Record<string, unknown>;
}
