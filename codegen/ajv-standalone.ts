// Compiles JSON Schemas into ajv standalone ES modules: no ajv compilation at run time, and the
// same code for the server, the MCP tools and (for the connector manifest) the published SDK.
import Ajv2020, { type Options } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import standaloneCode from "ajv/dist/standalone/index.js";
import { createHash } from "node:crypto";

type Json = Record<string, any>;

/** OpenAPI annotations that are not JSON Schema keywords; harmless to the validator. */
const ANNOTATIONS = ["example", "discriminator", "xml", "externalDocs"];

export function createAjv(options: Options) {
  const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({
    strict: true,
    allErrors: true,
    code: { source: true, esm: true, lines: true, optimize: true },
    ...options,
  });
  (addFormats as unknown as typeof addFormats.default)(ajv);
  ajv.addVocabulary(ANNOTATIONS);
  return ajv;
}

/** Removes vendor extensions (x-*) which ajv's strict mode would refuse as unknown keywords. */
export function stripExtensions(node: any): any {
  if (Array.isArray(node)) return node.map(stripExtensions);
  if (!node || typeof node !== "object") return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k]) => !k.startsWith("x-"))
      .map(([k, v]) => [k, stripExtensions(v)]),
  );
}

/**
 * Standalone code of `exports` (export name -> schema id). ajv emits require() calls for its
 * runtime helpers even in ESM mode; they become ES imports here.
 */
export function standaloneModule(ajv: ReturnType<typeof createAjv>, exports: Record<string, string>): string {
  const code = (standaloneCode as unknown as typeof standaloneCode.default)(ajv, exports);
  const imports: string[] = [];
  const names = new Map<string, string>();
  const body = code.replace(/require\("([^"]+)"\)/g, (_match, specifier: string) => {
    let name = names.get(specifier);
    if (!name) {
      name = `__runtime${names.size}`;
      names.set(specifier, name);
      const file = specifier.endsWith(".js") ? specifier : `${specifier}.js`;
      imports.push(`import ${name} from ${JSON.stringify(file)};`);
    }
    return name;
  });
  return [...imports, stableNames(body.replace(/^"use strict";\n?/, ""))].join("\n");
}

/** ajv's numbered module-level names: validators, schemas, formats, patterns, runtime helpers. */
const NUMBERED = /^(?:function (validate\d+)\(|const ((?:schema|formats|pattern|func)\d+) = (.*);$)/gm;

/**
 * Renames ajv's numbered module-level identifiers (validate173, schema69, pattern3…) after what
 * they stand for, so that adding one operation adds its own functions without renumbering every
 * function compiled after it (one new path operation rewrote ~800 lines of validators.params.js).
 * A validator is named after its schema's $id (ajv writes it as the function's sourceURL), a schema
 * constant after its $id; a validator of a local $defs entry, a format, a pattern or a runtime
 * helper after a hash of its definition (ajv's numbers blanked out).
 */
function stableNames(code: string): string {
  const renames = new Map<string, string>();
  const taken = new Set<string>();
  const claim = (from: string, wanted: string) => {
    let name = wanted;
    for (let i = 2; taken.has(name); i++) name = `${wanted}_${i}`;
    taken.add(name);
    renames.set(from, name);
  };
  const safe = (id: string) => id.replace(/[^A-Za-z0-9_]/g, "_");
  const hashOf = (text: string) =>
    createHash("sha256")
      .update(text.replace(/\b(validate|schema|formats|pattern|func)\d+\b/g, "$1#"))
      .digest("hex")
      .slice(0, 10);
  const definitions = [...code.matchAll(NUMBERED)];
  definitions.forEach((match, i) => {
    const [, fn, constant, definition] = match;
    if (fn) {
      const text = code.slice(match.index, definitions[i + 1]?.index ?? code.length);
      const source = /^.*\n\/\*# sourceURL="([^"]+)" \*\//.exec(text)?.[1];
      claim(fn, `validate_${source ? safe(source) : hashOf(text)}`);
    } else {
      const kind = constant!.replace(/\d+$/, "");
      const id = kind === "schema" ? (JSON.parse(definition!) as { $id?: string }).$id : undefined;
      claim(constant!, id ? `schema_${safe(id)}` : `${kind}_${hashOf(definition!)}`);
    }
  });
  if (renames.size === 0) return code;
  const pattern = new RegExp(`\\b(?:${[...renames.keys()].join("|")})\\b`, "g");
  return code.replace(pattern, (name) => renames.get(name)!);
}

export type { Json };
