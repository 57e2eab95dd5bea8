// Reading connector.json text: a syntax error becomes a problem with its line and column.
import type { ManifestProblem } from "./problems.js";

export type ParsedJson = { ok: true; value: unknown } | { ok: false; problem: ManifestProblem };

/** Line and column (both 1-based) of a character offset. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

/** Where JSON.parse stopped, from its message ("... at position 14", or "(line 3 column 5)" on newer engines). */
function syntaxErrorLocation(text: string, message: string): { line: number; column: number } {
  const lineColumn = /line (\d+) column (\d+)/.exec(message);
  if (lineColumn) return { line: Number(lineColumn[1]), column: Number(lineColumn[2]) };
  const position = /position (\d+)/.exec(message);
  return lineAndColumn(text, position ? Number(position[1]) : text.length);
}

export function parseJsonText(text: string): ParsedJson {
  // Editors on some systems save a byte order mark, which JSON.parse refuses.
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(source) };
  } catch (error) {
    const reason = (error as Error).message.replace(/\s*\(line \d+ column \d+\)$/, "").replace(/ in JSON at position \d+.*$/, "");
    const { line, column } = syntaxErrorLocation(source, (error as Error).message);
    return {
      ok: false,
      problem: {
        pointer: "",
        keyword: "json",
        message: `the file is not valid JSON: ${reason} (line ${line}, column ${column})`,
        params: { line, column },
      },
    };
  }
}
