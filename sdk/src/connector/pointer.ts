// JSON pointers (RFC 6901) into a manifest, and the dotted labels problem messages use for them.

export function pointerTokens(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}

export function childPointer(pointer: string, key: string | number): string {
  return `${pointer}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

/** The value at `pointer`, or undefined when nothing is there (a missing property). */
export function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const token of pointerTokens(pointer)) {
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, token)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * How a message names the value at `pointer`: `listing.tagline`, `install.fields[0].name`,
 * `install.fields[0].links["developer console"]`; the root is "the manifest".
 */
export function pointerLabel(root: unknown, pointer: string): string {
  let label = "";
  let node = root;
  for (const token of pointerTokens(pointer)) {
    if (Array.isArray(node)) label += `[${token}]`;
    else if (IDENTIFIER.test(token)) label += label ? `.${token}` : token;
    else label += label ? `[${JSON.stringify(token)}]` : JSON.stringify(token);
    node = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[token] : undefined;
  }
  return label || "the manifest";
}
