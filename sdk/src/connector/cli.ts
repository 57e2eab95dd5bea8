// The subbridge-connector command (bin entry: ../cli.ts), separate so tests can run it in-process.
//   subbridge-connector validate path/to/connector.json [--json]
// Exit status: 0 valid, 1 invalid (including a file that is not JSON), 2 usage or I/O error.
import { readFileSync } from "node:fs";
import { CONNECTOR_SCHEMA_URL, validateManifest } from "./index.js";
import type { ManifestProblem } from "./problems.js";

const USAGE = `Usage: subbridge-connector validate <path/to/connector.json> [--json]

Checks a connector manifest against every rule of the SubBridge connector schema
and lists every problem at once, each with a JSON pointer to the field.

Options:
  --json      print {"valid", "file", "errors": [{pointer, message, keyword, params}]}
  -h, --help  show this help

Exit status: 0 valid, 1 invalid, 2 usage or file error.
Schema (for "$schema" in editors): ${CONNECTOR_SCHEMA_URL}`;

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readFile: (path: string) => string;
}

const nodeIo: CliIo = {
  stdout: (text) => process.stdout.write(`${text}\n`),
  stderr: (text) => process.stderr.write(`${text}\n`),
  readFile: (path) => readFileSync(path, "utf8"),
};

function readFailure(path: string, error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === "ENOENT") return `cannot read ${path}: no such file`;
  if (code === "EISDIR") return `cannot read ${path}: it is a directory (pass the path of connector.json itself)`;
  if (code === "EACCES") return `cannot read ${path}: permission denied`;
  return `cannot read ${path}: ${(error as Error).message}`;
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;

/** Runs the command; returns the exit status. */
export function runCli(args: string[], io: CliIo = nodeIo): number {
  const json = args.includes("--json");
  const positional = args.filter((arg) => !arg.startsWith("-"));
  const unknownOption = args.find((arg) => arg.startsWith("-") && !["--json", "--help", "-h"].includes(arg));
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout(USAGE);
    return 0;
  }
  if (unknownOption || positional[0] !== "validate" || positional.length !== 2) {
    io.stderr(unknownOption ? `unknown option ${unknownOption}\n\n${USAGE}` : USAGE);
    return 2;
  }
  const path = positional[1];

  let text: string;
  try {
    text = io.readFile(path);
  } catch (error) {
    const message = readFailure(path, error);
    if (json) io.stdout(JSON.stringify({ valid: false, file: path, errors: [{ pointer: "", keyword: "file", message, params: {} }] }, null, 2));
    else io.stderr(`✖ ${message}`);
    return 2;
  }

  const result = validateManifest(text);
  if (json) {
    io.stdout(JSON.stringify({ valid: result.valid, file: path, errors: result.valid ? [] : result.errors }, null, 2));
    return result.valid ? 0 : 1;
  }
  if (result.valid) {
    io.stdout(`✔ ${path} is valid (key ${result.manifest.key}, version ${result.manifest.version})`);
    return 0;
  }
  io.stdout(result.errors.map((problem: ManifestProblem) => `✖ ${problem.pointer || "(document)"}: ${problem.message}`).join("\n"));
  io.stdout(`\n${path} is not a valid connector manifest: ${plural(result.errors.length, "problem")}.`);
  return 1;
}
