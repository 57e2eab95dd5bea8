// npm run codegen        regenerate generated/ from spec/
// npm run codegen:check  exit 1 when generated/ differs from what spec/ produces
// Deterministic and offline: the same spec/ always produces byte-identical files.
import { mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { loadSources, ROOT } from "./sources.ts";
import { bundle } from "./bundle.ts";
import { operationModels } from "./operation-model.ts";
import { emitTypes } from "./types.ts";
import { emitOperations } from "./operations.ts";
import { emitValidators } from "./validators.ts";
import { emitMcpTools } from "./mcp-tools.ts";
import { emitCatalogs } from "./catalogs.ts";
import { emitConnector } from "./connector.ts";
import { emitWebhookEvents } from "./webhook-events.ts";
import { emitSdkSamples } from "./sdk-samples.ts";
import { emitSdkResources } from "./sdk-resources.ts";
import type { GeneratedFile } from "./output.ts";

const GENERATED = join(ROOT, "generated");

export async function generate(): Promise<GeneratedFile[]> {
  const sources = loadSources();
  const release = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
  const doc = bundle(sources.fragments, sources.abilities, sources.errors);
  if (doc.info?.version !== release) throw new Error(`spec: info.version ${doc.info?.version} differs from package.json version ${release}`);
  const ops = operationModels(doc, sources.abilities);
  return [
    { path: "openapi.json", contents: JSON.stringify(doc, null, 2) + "\n" },
    await emitTypes(doc),
    emitOperations(doc, ops),
    ...emitValidators(doc, ops),
    emitMcpTools(doc, ops, release),
    ...emitCatalogs(sources.abilities, sources.errors, release),
    ...(await emitConnector(sources.connectorSchema)),
    emitWebhookEvents(doc),
    await emitSdkSamples(doc, ops),
    emitSdkResources(doc, ops, release),
  ].sort((a, b) => a.path.localeCompare(b.path));
}

function existingFiles(): string[] {
  try {
    return readdirSync(GENERATED).filter((f) => f !== ".gitattributes");
  } catch {
    return [];
  }
}

async function main() {
  const check = process.argv.includes("--check");
  const started = Date.now();
  const files = await generate();
  const expected = new Set(files.map((f) => f.path));
  if (check) {
    const stale: string[] = [];
    for (const f of files) {
      let current: string | null = null;
      try {
        current = readFileSync(join(GENERATED, f.path), "utf8");
      } catch {
        /* missing */
      }
      if (current !== f.contents) stale.push(current === null ? `${f.path} (missing)` : f.path);
    }
    for (const f of existingFiles()) if (!expected.has(f)) stale.push(`${f} (not produced by codegen)`);
    if (stale.length) {
      console.error(`generated/ is stale; run npm run codegen and commit the result:\n  ${stale.join("\n  ")}`);
      process.exit(1);
    }
    console.log(`generated/ is up to date (${files.length} files, ${Date.now() - started} ms)`);
    return;
  }
  mkdirSync(GENERATED, { recursive: true });
  for (const f of existingFiles()) if (!expected.has(f)) rmSync(join(GENERATED, f));
  for (const f of files) writeFileSync(join(GENERATED, f.path), f.contents);
  console.log(`generated ${files.length} files in ${Date.now() - started} ms`);
}

// Run as a command only: importing `generate` (the codegen test does) must not rewrite generated/,
// or the test comparing generated/ with a fresh generation would compare it with itself.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
