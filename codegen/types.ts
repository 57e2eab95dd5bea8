// openapi-typescript types of the bundled document: paths, components, operations.
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { openEnumType, withOpenResponseEnums } from "./open-enums.ts";
import { codeFile, type GeneratedFile } from "./output.ts";

type Json = Record<string, any>;

/** Names of the component schemas a `$ref` inside `node` reaches, followed through other components. */
function reachedSchemas(doc: Json, node: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) reachedSchemas(doc, item, into);
  else if (node && typeof node === "object") {
    const ref = (node as Json).$ref;
    if (typeof ref === "string" && ref.startsWith("#/components/schemas/")) {
      const name = ref.slice("#/components/schemas/".length);
      if (!into.has(name)) {
        into.add(name);
        reachedSchemas(doc, doc.components?.schemas?.[name], into);
      }
    } else for (const value of Object.values(node)) reachedSchemas(doc, value, into);
  }
  return into;
}

/**
 * The schemas only request bodies use. openapi-typescript's defaultNonNullable marks a property
 * with a default as present, which is right for responses (the server fills it) and for inline
 * request bodies (which it skips), but wrong for a request body's $ref'd schema: a caller may
 * leave a defaulted field out (openapi-typescript issue 2489). These schemas get them optional.
 */
export function requestOnlySchemas(doc: Json): Set<string> {
  const requests = new Set<string>();
  const elsewhere = new Set<string>();
  for (const item of Object.values<Json>(doc.paths ?? {}))
    for (const op of Object.values<Json>(item)) {
      if (!op || typeof op !== "object" || !("responses" in op)) continue;
      reachedSchemas(doc, op.requestBody, requests);
      reachedSchemas(doc, op.responses, elsewhere);
      reachedSchemas(doc, op.parameters, elsewhere);
    }
  reachedSchemas(doc, doc.webhooks, elsewhere);
  return new Set([...requests].filter((name) => !elsewhere.has(name)));
}

export async function emitTypes(doc: Json): Promise<GeneratedFile> {
  const requestOnly = requestOnlySchemas(doc);
  const ast = await openapiTS(withOpenResponseEnums(doc) as never, {
    silent: true,
    alphabetize: false,
    transform: openEnumType,
    transformProperty(property, schema, options) {
      const owner = /^#\/components\/schemas\/([^/]+)/.exec(options.path ?? "")?.[1];
      const defaulted = typeof schema === "object" && "default" in schema && schema.default !== undefined;
      if (!owner || !requestOnly.has(owner) || !defaulted || property.questionToken) return undefined;
      return ts.factory.updatePropertySignature(
        property,
        property.modifiers,
        property.name,
        ts.factory.createToken(ts.SyntaxKind.QuestionToken),
        property.type,
      );
    },
  });
  return codeFile("openapi.d.ts", "types.ts", "generated/openapi.json (openapi-typescript)", astToString(ast));
}
