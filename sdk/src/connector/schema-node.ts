// The few JSON Schema keywords the problem messages read from spec/connector.schema.json, and a
// walk from a manifest pointer to the schema that governs the value there. (ajv's schemaPath is
// no help here: it is relative to whichever definition ajv compiled as its own function.)
export interface SchemaNode {
  $ref?: string;
  properties?: Record<string, SchemaNode>;
  $defs?: Record<string, SchemaNode>;
  items?: SchemaNode;
  additionalProperties?: boolean | SchemaNode;
  [keyword: string]: unknown;
}

/** The schema object at a local reference such as "#/$defs/listing" (null when there is none). */
export function schemaAt(root: SchemaNode, reference: string): SchemaNode | null {
  let node: unknown = root;
  for (const token of reference.replace(/^#\/?/, "").split("/")) {
    if (token === "") continue;
    if (!node || typeof node !== "object") return null;
    node = (node as Record<string, unknown>)[token.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return node && typeof node === "object" ? (node as SchemaNode) : null;
}

export interface GoverningSchema {
  node: SchemaNode;
  /** The last definition reached through $ref ("#/$defs/link"), or null. */
  definition: string | null;
}

function followReferences(root: SchemaNode, node: SchemaNode): GoverningSchema | null {
  let definition: string | null = null;
  let current: SchemaNode | null = node;
  for (let hops = 0; current?.$ref !== undefined && hops < 32; hops++) {
    definition = current.$ref;
    current = schemaAt(root, current.$ref);
  }
  return current ? { node: current, definition } : null;
}

/** The schema that governs the value at a JSON pointer's tokens, or null outside the schema. */
export function schemaFor(root: SchemaNode, tokens: string[]): GoverningSchema | null {
  let governing = followReferences(root, root);
  for (const token of tokens) {
    if (!governing) return null;
    const { node } = governing;
    let next: SchemaNode | undefined;
    if (node.properties && Object.hasOwn(node.properties, token)) next = node.properties[token];
    else if (node.items && /^\d+$/.test(token)) next = node.items;
    else if (typeof node.additionalProperties === "object") next = node.additionalProperties;
    if (!next) return null;
    governing = followReferences(root, next);
  }
  return governing;
}
