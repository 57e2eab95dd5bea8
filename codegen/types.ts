// openapi-typescript types of the bundled document: paths, components, operations.
import openapiTS, { astToString } from "openapi-typescript";
import { codeFile, type GeneratedFile } from "./output.ts";

export async function emitTypes(doc: Record<string, unknown>): Promise<GeneratedFile> {
  const ast = await openapiTS(structuredClone(doc) as never, { silent: true, alphabetize: false });
  return codeFile("openapi.d.ts", "types.ts", "generated/openapi.json (openapi-typescript)", astToString(ast));
}
