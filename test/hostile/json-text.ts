// JSON text the suite writes byte by byte: values JSON.stringify cannot produce (1e309, -0,
// 2**53+1 exactly, nesting 10,000 deep, bytes that are not UTF-8) are RawJson fragments copied
// verbatim into the text, so nothing hostile is normalised on the way out. Also the scans the
// oracle uses on what a server would parse; none of them recurses, as client data may nest
// without bound.

/** A piece of JSON text written as is (it may hold bytes that are not UTF-8). */
export class RawJson {
  constructor(readonly chunks: readonly (string | Buffer)[]) {}
}

export const raw = (...chunks: (string | Buffer)[]) => new RawJson(chunks);

/** `[` n times then `]` n times, and the object and mixed shapes, built as text (never as values). */
export function nestedText(depth: number, shape: "array" | "object" | "mixed", leaf = "null"): string {
  if (shape === "array") return "[".repeat(depth) + leaf + "]".repeat(depth);
  if (shape === "object") return '{"a":'.repeat(depth) + leaf + "}".repeat(depth);
  const pairs = Math.ceil(depth / 2);
  return '[{"a":'.repeat(pairs) + leaf + "}]".repeat(pairs);
}

/** JSON text of a value whose leaves may be RawJson. Generated values are shallow (schema depth). */
export function encodeJson(value: unknown): Buffer {
  const parts: (string | Buffer)[] = [];
  const write = (v: unknown): void => {
    if (v instanceof RawJson) parts.push(...v.chunks);
    else if (Array.isArray(v)) {
      parts.push("[");
      v.forEach((item, i) => {
        if (i) parts.push(",");
        write(item);
      });
      parts.push("]");
    } else if (v !== null && typeof v === "object") {
      parts.push("{");
      Object.entries(v).forEach(([key, item], i) => {
        if (i) parts.push(",");
        parts.push(JSON.stringify(key), ":");
        write(item);
      });
      parts.push("}");
    } else parts.push(JSON.stringify(v) ?? "null");
  };
  write(value);
  return Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : p)));
}

/** Whether a value holds a RawJson anywhere (so a JSON library could not send it faithfully). */
export function holdsRaw(value: unknown): boolean {
  const stack = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v instanceof RawJson) return true;
    if (v !== null && typeof v === "object") stack.push(...Object.values(v));
  }
  return false;
}

/** Sets an own property, so a key named __proto__ stays a key. */
export function defineKey(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A copy of `root` with `value` at `path` (an own property), creating the containers on the way. */
export function withValueAt(root: unknown, path: readonly string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = (root !== null && typeof root === "object" ? structuredClone(root) : {}) as Record<string, unknown>;
  let node = copy;
  path.slice(0, -1).forEach((key, i) => {
    if (node[key] === null || typeof node[key] !== "object") defineKey(node, key, /^\d+$/.test(path[i + 1]!) ? [] : {});
    node = node[key] as Record<string, unknown>;
  });
  defineKey(node, path.at(-1)!, value);
  return copy;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** The text of the bytes, or null when they are not valid UTF-8. */
export function utf8Text(bytes: Buffer): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/** How many arrays and objects nest inside each other (a scalar is 0). */
export function depthOf(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    max = Math.max(max, depth + 1);
    for (const child of Object.values(node)) if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return max;
}

const badText = (s: string) => s.includes("\u0000") || !s.isWellFormed();

/**
 * Dotted paths (from `root`) of every string value or object key holding NUL or an unpaired
 * surrogate, and every number that is not finite: what the description says is refused.
 */
export function unsafeSpots(value: unknown, root = ""): string[] {
  const spots: string[] = [];
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length) {
    const [node, path] = stack.pop()!;
    if (typeof node === "string" && badText(node)) spots.push(path);
    else if (typeof node === "number" && !Number.isFinite(node)) spots.push(path);
    else if (node !== null && typeof node === "object") {
      for (const [key, child] of Object.entries(node)) {
        const childPath = path ? `${path}.${key}` : key;
        if (!Array.isArray(node) && badText(key)) spots.push(childPath);
        stack.push([child, childPath]);
      }
    }
  }
  return spots;
}

/** Bytes as readable text: printable ASCII as is, everything else as \xNN. */
export function printableBytes(bytes: Buffer, max = 300): string {
  let out = "";
  for (const b of bytes.subarray(0, max)) out += b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, "0")}`;
  return bytes.length > max ? `${out}… (${bytes.length} bytes)` : out;
}
