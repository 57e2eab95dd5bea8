// Typechecks code a receiver would write (README examples, generated samples) against the SDK's
// sources, in memory: each snippet is its own ES module at a path inside test/sdk (so node_modules
// and "type": "module" apply) that imports the package by its published name, mapped to sdk/src.
import { join } from "node:path";
import ts from "typescript";
import { ROOT } from "../connector/manifest-files.ts";

const OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
  types: ["node"],
  baseUrl: ROOT,
  paths: { "@subbridge/sdk": ["sdk/src/index.ts"], "@subbridge/sdk/webhooks": ["sdk/src/webhooks.ts"] },
};

/**
 * The compiler's diagnostics for the snippets, as `<file>:<line>: <message>`; none when they compile.
 * `names` names their files (else snippet-<i>), `stricter` adds compiler options (a consumer's own).
 */
export function snippetErrors(snippets: string[], { names, stricter }: { names?: string[]; stricter?: ts.CompilerOptions } = {}): string[] {
  const files = new Map(snippets.map((code, i) => [join(ROOT, "test/sdk", `${names?.[i] ?? `snippet-${i}`}.ts`), code]));
  const options = { ...OPTIONS, ...stricter };
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (name) => files.has(name) || fileExists.call(host, name);
  host.readFile = (name) => files.get(name) ?? readFile.call(host, name);
  host.getSourceFile = (name, language, ...rest) =>
    files.has(name) ? ts.createSourceFile(name, files.get(name)!, language) : getSourceFile.call(host, name, language, ...rest);
  const program = ts.createProgram([...files.keys()], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${d.file.fileName.slice(ROOT.length)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}: ` : "";
    return where + ts.flattenDiagnosticMessageText(d.messageText, "\n");
  });
}
