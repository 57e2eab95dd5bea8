// The manifests the connector tests read: fixtures (valid/, invalid/ with <name>.expect.json) and
// the example connectors' connector.json.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const FIXTURES = join(ROOT, "test/fixtures/manifests");

export const readJson = (path: string): any => JSON.parse(readFileSync(path, "utf8"));

const manifestsIn = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".json") && !f.endsWith(".expect.json"))
    .sort()
    .map((f) => join(dir, f));

export const validFixtures = manifestsIn(join(FIXTURES, "valid"));
export const invalidFixtures = manifestsIn(join(FIXTURES, "invalid"));
export const expectationFiles = readdirSync(join(FIXTURES, "invalid"))
  .filter((f) => f.endsWith(".expect.json"))
  .map((f) => join(FIXTURES, "invalid", f));

export const exampleConnectors = readdirSync(join(ROOT, "connectors"))
  .map((dir) => join(ROOT, "connectors", dir, "connector.json"))
  .filter((path) => existsSync(path))
  .sort();

/** What an invalid fixture breaks: the pointer and keyword of its one problem. */
export function expectationOf(fixture: string): { pointer: string; keyword: string } {
  return readJson(fixture.replace(/\.json$/, ".expect.json"));
}

/** A copy of the smallest valid manifest, to break on purpose. */
export function minimalManifest(): any {
  return readJson(join(FIXTURES, "valid/minimal-required-only.json"));
}
