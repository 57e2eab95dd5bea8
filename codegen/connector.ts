// The connector manifest toolkit's generated half: TypeScript types of connector.json
// (json-schema-to-typescript) and a standalone validator compiled from spec/connector.schema.json.
import { compile } from "json-schema-to-typescript";
import { codeFile, type GeneratedFile } from "./output.ts";
import { createAjv, standaloneModule, type Json } from "./ajv-standalone.ts";

const SOURCE = "spec/connector.schema.json";

/**
 * json-schema-to-typescript turns every `$ref` carrying its own description into a new named
 * alias (Link1, Link2, ...). Folding the description into a JSDoc-only copy keeps one `Link` type.
 */
function withoutRefSiblings(node: any): any {
  if (Array.isArray(node)) return node.map(withoutRefSiblings);
  if (!node || typeof node !== "object") return node;
  if (typeof node.$ref === "string") return { $ref: node.$ref };
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, withoutRefSiblings(v)]));
}

export async function emitConnector(schema: Json): Promise<GeneratedFile[]> {
  // json-schema-to-typescript names the root type after `title` or `$id` when present; the toolkit's
  // public name is ConnectorManifest.
  const { title: _title, $id: _id, ...untitled } = withoutRefSiblings(structuredClone(schema));
  const types = await compile(untitled, "ConnectorManifest", {
    bannerComment: "",
    additionalProperties: false,
    unreachableDefinitions: false,
    strictIndexSignatures: true,
    format: true,
  });
  const ajv = createAjv({ coerceTypes: false, useDefaults: false });
  ajv.addSchema(schema, "connector");
  return [
    codeFile("connector-manifest.d.ts", "connector.ts", `${SOURCE} (json-schema-to-typescript)`, types),
    codeFile(
      "connector-validator.js",
      "connector.ts",
      `${SOURCE} (ajv standalone)`,
      standaloneModule(ajv, { validateConnectorManifest: "connector" }),
    ),
    codeFile(
      "connector-validator.d.ts",
      "connector.ts",
      `${SOURCE} (ajv standalone)`,
      [
        `import type { ConnectorManifest } from "./connector-manifest.d.ts";`,
        `import type { ValidationError } from "./validators.d.ts";`,
        ``,
        `/** Validates a parsed connector.json; on failure \`errors\` lists every problem (allErrors). */`,
        `export declare const validateConnectorManifest: {`,
        `  (data: unknown): data is ConnectorManifest;`,
        `  errors?: ValidationError[] | null;`,
        `};`,
      ].join("\n"),
    ),
  ];
}
