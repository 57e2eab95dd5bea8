// Finds every area's tenancy fixtures (test/modules/<area>/tenancy-fixtures.ts, export
// `tenancyFixtures`) with fs, merges them, and lists what is wrong: an authenticated operation
// without a fixture, an operation claimed twice, a fixture naming no (or a public) operation, a
// fixture in another area's file, or the wrong kind of fixture. Nobody edits a shared list.
import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { operationList, type OperationId, type OperationSpec } from "../../generated/operations.ts";
import { areaOfTag as toolsetName } from "../../codegen/bundle.ts";
import { authenticatedOperations } from "../helpers/operations.ts";
import type { AnyFixture, PathFixture, ProbeFixture } from "./types.ts";

export const MODULES_DIR = fileURLToPath(new URL("../modules/", import.meta.url));
export const FIXTURE_FILE = "tenancy-fixtures.ts";
export const FIXTURE_EXPORT = "tenancyFixtures";
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The operations the matrix covers: every one that takes a credential (`!op.public`). */
export const expectedOperations: readonly OperationSpec[] = authenticatedOperations;

/** An operation's area: its first tag as an MCP toolset names it ("Tokens" -> tokens). */
export function areaOf(op: OperationSpec): string {
  return toolsetName(op.tags[0] ?? "untagged");
}

/** Where an operation's fixture belongs. */
export function fixtureFileOf(op: OperationSpec): string {
  return `test/modules/${areaOf(op)}/${FIXTURE_FILE}`;
}

/** One fixture file as found on disk. */
export interface FixtureSource {
  /** Path from the repository root, for messages. */
  file: string;
  /** The folder name under test/modules/. */
  area: string;
  /** The module's `tenancyFixtures` export (undefined when missing). */
  fixtures: unknown;
}

export interface LoadedFixture {
  op: OperationSpec;
  file: string;
  fixture: AnyFixture;
}

export interface FixtureSet {
  /** The operations whose fixture the matrix can run: claimed once, of the right kind. */
  byOperation: Map<OperationId, LoadedFixture>;
  /** One line per problem; the matrix fails while any is left. */
  problems: string[];
  /** The problems that keep an operation out of byOperation (missing, claimed twice, wrong kind). */
  blocking: Map<OperationId, string[]>;
}

export function isPathFixture(fixture: AnyFixture): fixture is PathFixture {
  return typeof (fixture as PathFixture).create === "function";
}

export function isProbeFixture(fixture: AnyFixture): fixture is ProbeFixture {
  return typeof (fixture as ProbeFixture).probe === "function";
}

/** Merges the sources and checks them against `expected` (the authenticated operations). */
export function checkFixtures(expected: readonly OperationSpec[], sources: readonly FixtureSource[], all = operationList): FixtureSet {
  const problems: string[] = [];
  const blocking = new Map<OperationId, string[]>();
  const block = (id: OperationId, problem: string) => {
    problems.push(problem);
    blocking.set(id, [...(blocking.get(id) ?? []), problem]);
  };
  const claims = new Map<OperationId, LoadedFixture>();
  const known = new Map<string, OperationSpec>(all.map((op) => [op.id, op]));
  const covered = new Set(expected.map((op) => op.id as string));
  for (const source of sources) {
    if (source.fixtures === null || typeof source.fixtures !== "object") {
      problems.push(`${source.file}: exports no \`${FIXTURE_EXPORT}\` record (export const ${FIXTURE_EXPORT}: AreaFixtures = {...})`);
      continue;
    }
    for (const [id, fixture] of Object.entries(source.fixtures as Record<string, AnyFixture>)) {
      const op = known.get(id);
      if (!op) {
        problems.push(`${source.file}: ${id} names no operation of generated/operations.ts`);
        continue;
      }
      if (!covered.has(id)) {
        problems.push(
          `${source.file}: ${id} is ${op.public ? "public (no credential, so no tenancy)" : "not covered by the matrix"}: remove its fixture`,
        );
        continue;
      }
      if (areaOf(op) !== source.area) {
        problems.push(
          `${source.file}: ${id} belongs to the area ${areaOf(op)} (first tag "${op.tags[0]}"): move its fixture to ${fixtureFileOf(op)}`,
        );
      }
      const claimed = claims.get(op.id);
      if (claimed) {
        block(op.id, `${id} is claimed twice: by ${claimed.file} and by ${source.file}`);
        continue;
      }
      claims.set(op.id, { op, file: source.file, fixture });
      if (op.pathParams.length > 0 && !isPathFixture(fixture)) {
        block(op.id, `${source.file}: ${id} has path parameters (${op.pathParams.join(", ")}): its fixture needs create, outside and exists`);
      } else if (op.pathParams.length === 0 && !isProbeFixture(fixture)) {
        block(op.id, `${source.file}: ${id} has no path parameter: its fixture needs a probe`);
      }
    }
  }
  for (const op of expected) {
    if (!claims.has(op.id)) {
      const kind = op.pathParams.length ? `a path fixture (create, outside, exists) for {${op.pathParams.join("}, {")}}` : "a probe";
      block(op.id, `${op.id} (${op.method} ${op.path}) has no tenancy fixture: add ${kind} to ${fixtureFileOf(op)}`);
    }
  }
  const byOperation = new Map([...claims].filter(([id]) => !blocking.has(id)));
  return { byOperation, problems, blocking };
}

/** Every test/modules/<area>/tenancy-fixtures.ts, imported. */
export async function discoverFixtureSources(dir = MODULES_DIR): Promise<FixtureSource[]> {
  if (!existsSync(dir)) return [];
  const sources: FixtureSource[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((x, y) => x.name.localeCompare(y.name))) {
    if (!entry.isDirectory()) continue;
    const path = join(dir, entry.name, FIXTURE_FILE);
    if (!existsSync(path)) continue;
    const module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
    sources.push({ file: relative(ROOT, path), area: entry.name, fixtures: module[FIXTURE_EXPORT] });
  }
  return sources;
}

export async function loadFixtures(expected: readonly OperationSpec[] = expectedOperations): Promise<FixtureSet> {
  return checkFixtures(expected, await discoverFixtureSources());
}
