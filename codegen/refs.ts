// Local JSON-pointer references inside the bundled document.
type Json = Record<string, any>;

export function resolvePointer(doc: Json, ref: string): any {
  if (!ref.startsWith("#/")) throw new Error(`spec: only local references are supported, got ${ref}`);
  let node: any = doc;
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    node = node?.[key];
    if (node === undefined) throw new Error(`spec: unresolved reference ${ref}`);
  }
  return node;
}

/** Follows $ref chains until a non-reference node. */
export function deref<T = Json>(doc: Json, node: any): T {
  let current = node;
  for (let i = 0; current && typeof current === "object" && typeof current.$ref === "string"; i++) {
    if (i > 20) throw new Error("spec: reference cycle");
    current = resolvePointer(doc, current.$ref);
  }
  return current as T;
}

/** A deep copy of `schema` with every local $ref replaced by its target (cycles are refused). */
export function inlineRefs(doc: Json, schema: any, seen: string[] = []): any {
  if (Array.isArray(schema)) return schema.map((s) => inlineRefs(doc, s, seen));
  if (!schema || typeof schema !== "object") return schema;
  if (typeof schema.$ref === "string") {
    const ref = schema.$ref;
    if (seen.includes(ref)) throw new Error(`spec: recursive schema ${ref} cannot be inlined`);
    const { $ref: _ignored, ...siblings } = schema;
    const target = inlineRefs(doc, resolvePointer(doc, ref), [...seen, ref]);
    return Object.keys(siblings).length ? { ...target, ...inlineRefs(doc, siblings, seen) } : target;
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inlineRefs(doc, v, seen)]));
}
