// Every claim the shipped connector packages make (manifest and GET /v1/connectors) is exercised by
// a test: a test names the claims it proves in its title, as `[claim <id> <id>…]`, and this file
// fails for a claim no test names and for a name no claim has (a withdrawn claim's test marker).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_CONNECTORS_DIR } from "../../src/config.ts";
import { loadConnectorRegistry } from "../../src/modules/connectors/registry.ts";
import { manifestClaims, overviewSentences, type Claim } from "../../src/modules/connectors/claims.ts";
import { startApi, type RunningApi } from "../helpers/server.ts";
import { ApiClient } from "../helpers/http.ts";
import { createTestCreator, tokenFor } from "../helpers/fixtures.ts";

const TEST_DIR = fileURLToPath(new URL("..", import.meta.url));
// Built from parts so that this file's own text holds no marker.
const MARKER = new RegExp(`\\[${"claim"}s? ((?:[a-z][a-z0-9_-]*\\.[a-z0-9_.-]+ ?)+)\\]`, "g");

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return /\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Claim id -> the test files whose titles name it. */
function provenClaims(): Map<string, string[]> {
  const proven = new Map<string, string[]>();
  for (const file of testFiles(TEST_DIR)) {
    for (const match of readFileSync(file, "utf8").matchAll(MARKER)) {
      for (const id of match[1]!.trim().split(/\s+/)) proven.set(id, [...(proven.get(id) ?? []), relative(TEST_DIR, file)]);
    }
  }
  return proven;
}

describe("connector claims: each one has a test that exercises it", () => {
  const registry = loadConnectorRegistry(DEFAULT_CONNECTORS_DIR);
  const claims: Claim[] = [...registry.packages.values()].flatMap((pkg) => manifestClaims(pkg.manifest, (t) => pkg.english[t] ?? t));
  const proven = provenClaims();

  it("every claim of the shipped manifests is named by a test", () => {
    const unproven = claims.filter((c) => !proven.has(c.id)).map((c) => `${c.id} (${c.text})`);
    assert.deepEqual(unproven, [], `claims without a test: add [claim <id>] to the title of the test that exercises each, or withdraw the claim`);
  });

  it("every claim a test names is still made by a manifest", () => {
    const known = new Set(claims.map((c) => c.id));
    const stale = [...proven.entries()].filter(([id]) => !known.has(id)).map(([id, files]) => `${id} in ${files.join(", ")}`);
    assert.deepEqual(stale, []);
  });

  it("ids are unique, so one marker never stands for two claims", () => {
    const ids = claims.map((c) => c.id);
    assert.equal(new Set(ids).size, ids.length);
  });

  describe("GET /v1/connectors says no more than the manifests", function () {
    // Starting an API server takes a while on a loaded machine.
    this.timeout(120_000);
    let api: RunningApi;
    let client: ApiClient;
    before(async () => {
      api = await startApi({ connectors: registry });
      const creator = await createTestCreator({ label: "claims" });
      client = new ApiClient(api.url, (await tokenFor(creator, ["project-connector:view-any"])).token);
    });
    after(() => api?.close());

    it("each card's capabilities, settings, resource kinds and overview are its manifest's", async () => {
      const res = await client.get("/v1/connectors");
      assert.equal(res.status, 200);
      const cards = res.body.data as {
        key: string;
        capabilities: string[];
        overview: string;
        install: { settings_fields: { name: string }[]; fields: { name: string }[] } | null;
        resource_kinds: { kind: string }[];
      }[];
      for (const pkg of registry.packages.values()) {
        const card = cards.find((c) => c.key === pkg.key);
        assert.ok(card, pkg.key);
        const mine = claims.filter((c) => c.id.startsWith(`${pkg.key}.`)).map((c) => c.id);
        for (const capability of card.capabilities) assert.ok(mine.includes(`${pkg.key}.capabilities.${capability}`), capability);
        for (const field of card.install?.settings_fields ?? []) assert.ok(mine.includes(`${pkg.key}.settings.${field.name}`), field.name);
        for (const field of card.install?.fields ?? []) assert.ok(mine.includes(`${pkg.key}.install.${field.name}`), field.name);
        for (const kind of card.resource_kinds) assert.ok(mine.includes(`${pkg.key}.resource_kinds.${kind.kind}`), kind.kind);
        const sentences = overviewSentences(card.overview);
        assert.ok(sentences.length > 0, `${pkg.key}: the overview promises nothing a test could check`);
        for (const sentence of sentences)
          assert.ok(
            claims.some((c) => c.id.startsWith(`${pkg.key}.overview.`) && c.text === sentence),
            sentence,
          );
      }
    });
  });
});
