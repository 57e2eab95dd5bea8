// Temporary connectors folders built from the repository's example packages, edited per test.
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_CONNECTORS_DIR } from "../../src/config.ts";
import { loadConnectorRegistry } from "../../src/modules/connectors/registry.ts";
import { ConnectorLoadError } from "../../src/modules/connectors/problems.ts";

const created: string[] = [];

/** A fresh folder holding copies of these example packages (folder name -> example key). */
export function connectorsFolder(packages: Record<string, string> = { telegram: "telegram", discord: "discord" }): string {
  const dir = mkdtempSync(join(tmpdir(), "subbridge-connectors-"));
  created.push(dir);
  for (const [folder, example] of Object.entries(packages)) cpSync(join(DEFAULT_CONNECTORS_DIR, example), join(dir, folder), { recursive: true });
  return dir;
}

export function removeConnectorsFolders(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function editJson(file: string, edit: (json: any) => void): void {
  const json = JSON.parse(readFileSync(file, "utf8"));
  edit(json);
  writeFileSync(file, JSON.stringify(json, null, 2));
}

export function writeFile(file: string, text: string): void {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, text);
}

export interface ExpectedProblem {
  file: string;
  pointer: string;
  message: string | RegExp;
}

/** Loading `dir` fails with exactly these problems (files relative to dir), and the message lists each. */
export function expectProblems(dir: string, expected: ExpectedProblem[]): ConnectorLoadError {
  let error: unknown;
  try {
    loadConnectorRegistry(dir);
  } catch (err) {
    error = err;
  }
  assert.ok(error instanceof ConnectorLoadError, `expected a ConnectorLoadError, got ${String(error)}`);
  const actual = error.problems.map((p) => ({ file: p.file.slice(dir.length + 1), pointer: p.pointer, message: p.message }));
  assert.equal(actual.length, expected.length, `problems:\n${JSON.stringify(actual, null, 2)}`);
  for (const want of expected) {
    const found = actual.find(
      (p) =>
        p.file === want.file &&
        p.pointer === want.pointer &&
        (typeof want.message === "string" ? p.message === want.message : want.message.test(p.message)),
    );
    assert.ok(found, `missing problem ${JSON.stringify({ ...want, message: String(want.message) })}\nin:\n${JSON.stringify(actual, null, 2)}`);
    assert.ok(error.message.includes(`${join(dir, want.file)} is invalid:\n`), `the message names ${want.file}:\n${error.message}`);
    assert.ok(
      error.message.includes(`  ${want.pointer ? `${want.pointer}: ` : ""}${found.message}`),
      `the message lists ${want.pointer}:\n${error.message}`,
    );
  }
  return error;
}
