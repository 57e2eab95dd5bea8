// generated/handlers.ts: every area's handlers, gathered for the pipeline. Derived from the areas
// of the spec, so adding an area or an operation edits no shared list: tsc fails when an area's
// module (src/modules/<area>/handlers.ts) is missing or lacks one of its operations.
import type { OperationModel } from "./operation-model.ts";
import { codeFile, type GeneratedFile } from "./output.ts";

const identifier = (area: string) => area.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

export function emitHandlers(ops: OperationModel[]): GeneratedFile {
  const areas = [...new Set(ops.map((o) => o.area))].sort();
  const body = [
    `import type { Handlers } from "./operations.ts";`,
    `import type { OperationContext } from "../src/pipeline/context.ts";`,
    ...areas.map((area) => `import { handlers as ${identifier(area)} } from "../src/modules/${area}/handlers.ts";`),
    ``,
    `/** One handler per operation of the table. */`,
    `export const handlers: Handlers<OperationContext> = {`,
    ...areas.map((area) => `  ...${identifier(area)},`),
    `};`,
  ].join("\n");
  return codeFile("handlers.ts", "handlers.ts", "the areas of spec/openapi/areas", body);
}
