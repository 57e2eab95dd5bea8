// The subbridge-connector command (bin entry: ../cli.ts), separate so tests can run it in-process.
//   subbridge-connector validate <package folder | path/to/connector.json> [--json]
// A package folder, or a file named connector.json, is loaded by the server's own loader (./package.ts);
// any other JSON file is checked as a manifest alone.
// Exit status: 0 valid, 1 invalid (including a file that is not JSON), 2 usage or I/O error.
import { readFileSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import { CONNECTOR_SCHEMA_URL, validateManifest } from "./index.js";
import { formatProblem, loadConnectorPackage, MANIFEST_FILE, type PackageProblem } from "./package.js";

const USAGE = `Usage: subbridge-connector validate <path/to/connector.json> [--json]
       subbridge-connector validate <package folder> [--json]

Checks a connector package the way the SubBridge server loads it at start:
connector.json against every rule of the connector schema and the field rule
language, unique resource kinds, select options against their in: rules, the
folder named after the key, and lang/en.json translating every string a
creator reads. Lists every problem at once as <file>: <JSON pointer>: <problem> — <fix>.
A JSON file not named connector.json is checked as a manifest alone.

Options:
  --json      print {"valid", "file", "errors": [{file, pointer, message, fix?}]}
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
  if (code === "EACCES") return `cannot read ${path}: permission denied`;
  return `cannot read ${path}: ${(error as Error).message}`;
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;

type Checked = { valid: true; summary: string } | { valid: false; problems: PackageProblem[]; what: string };

/** The package folder `path` names (the folder itself, or the folder of its connector.json), or null for a lone manifest file. */
function packageFolder(path: string): string | null {
  if (statSync(path).isDirectory()) return path;
  return basename(path) === MANIFEST_FILE ? dirname(path) : null;
}

function check(path: string, io: CliIo): Checked {
  const folder = packageFolder(path);
  if (folder !== null) {
    const load = loadConnectorPackage(folder);
    if (load.ok)
      return {
        valid: true,
        summary: `${path} is valid and loads as the server loads it (key ${load.package.key}, version ${load.package.manifest.version})`,
      };
    return { valid: false, problems: load.problems, what: `the package ${folder} would be refused by the server` };
  }
  const result = validateManifest(io.readFile(path));
  if (result.valid) return { valid: true, summary: `${path} is valid (key ${result.manifest.key}, version ${result.manifest.version})` };
  const problems = result.errors.map(({ pointer, message, keyword, params, fix }) => ({
    file: path,
    pointer,
    message,
    keyword,
    params,
    ...(fix ? { fix } : {}),
  }));
  return { valid: false, problems, what: `${path} is not a valid connector manifest` };
}

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
  const path = positional[1]!;

  let result: Checked;
  try {
    result = check(path, io);
  } catch (error) {
    const message = readFailure(path, error);
    if (json)
      io.stdout(JSON.stringify({ valid: false, file: path, errors: [{ file: path, pointer: "", keyword: "file", message, params: {} }] }, null, 2));
    else io.stderr(`✖ ${message}`);
    return 2;
  }
  if (json) {
    io.stdout(JSON.stringify({ valid: result.valid, file: path, errors: result.valid ? [] : result.problems }, null, 2));
    return result.valid ? 0 : 1;
  }
  if (result.valid) {
    io.stdout(`✔ ${result.summary}`);
    return 0;
  }
  io.stdout(result.problems.map((problem) => `✖ ${formatProblem(problem)}`).join("\n"));
  io.stdout(`\n${result.what}: ${plural(result.problems.length, "problem")}.`);
  return 1;
}
