// Compiles JSON Schemas into ajv standalone ES modules: no ajv compilation at run time, and the
// same code for the server, the MCP tools and (for the connector manifest) the published SDK.
import Ajv2020, { type Options } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import standaloneCode from "ajv/dist/standalone/index.js";

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
  return [...imports, body.replace(/^"use strict";\n?/, "")].join("\n");
}

export type { Json };
