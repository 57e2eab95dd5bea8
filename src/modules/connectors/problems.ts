// What is wrong with the connector packages (or the operator's catalog file), and the one error
// that refuses the start: every problem of every file at once, so one restart fixes them all.
import { isAbsolute, relative } from "node:path";
import type { PackageProblem } from "@subbridge/sdk/connector/package";

export type { PackageProblem };
export { quoted } from "@subbridge/sdk/connector/package";

/** A path as the operator typed it: relative to the working directory when inside it. */
export function displayPath(file: string): string {
  const inside = relative(process.cwd(), file);
  return inside && !inside.startsWith("..") && !isAbsolute(inside) ? inside : file;
}

/** `<file> is invalid:` then one `<pointer>: <message>` line per problem, files in the order met. */
export function describeProblems(problems: readonly PackageProblem[]): string {
  const byFile = new Map<string, PackageProblem[]>();
  for (const problem of problems) {
    if (!byFile.has(problem.file)) byFile.set(problem.file, []);
    byFile.get(problem.file)!.push(problem);
  }
  return [...byFile]
    .map(
      ([file, list]) =>
        `${displayPath(file)} is invalid:\n${list.map((p) => `  ${p.pointer ? `${p.pointer}: ` : ""}${p.message}${p.fix ? ` — ${p.fix}` : ""}`).join("\n")}`,
    )
    .join("\n");
}

/** Thrown at start when a connector package or the catalog file is invalid; the message lists every problem. */
export class ConnectorLoadError extends Error {
  constructor(readonly problems: readonly PackageProblem[]) {
    super(describeProblems(problems));
    this.name = "ConnectorLoadError";
  }
}

/** One reference token of a JSON pointer (RFC 6901: ~ and / escaped). */
export const pointerToken = (token: string) => token.replace(/~/g, "~0").replace(/\//g, "~1");
