#!/usr/bin/env node
// Builds the publishable package into sdk/dist. Deterministic and offline.
//
// The generated inputs are not kept under sdk/ in git: sdk/src/generated/ holds stand-ins that
// re-export ../generated and ../spec, so the sources typecheck and run in the repository. This
// script compiles a staged copy of sdk/src (sdk/.build) in which the stand-ins are replaced by
//   generated/openapi.d.ts, generated/connector-manifest.d.ts   -> copied as type-only modules
//   generated/webhook-events.ts                                 -> copied (event map and names)
//   generated/connector-validator.js                            -> bundled with esbuild together
//       with the few ajv / ajv-formats runtime helpers it imports, so the package's
//       dependencies stay openapi-fetch and structured-headers (RFC 9421 verification)
//   spec/connector.schema.json                                  -> the structural keywords the
//       problem messages read (and the whole schema as dist/connector.schema.json)
// then runs tsc (TypeScript from the repository's node_modules) and checks that nothing in dist
// points outside it.
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { NEUTRAL_ESM_BUNDLE } from "./esbuild-options.mjs";

const SDK = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const ROOT = resolve(SDK, "..");
const STAGE = join(SDK, ".build");
const DIST = join(SDK, "dist");
const require = createRequire(import.meta.url);

const read = (path) => readFileSync(path, "utf8");
const readJson = (path) => JSON.parse(read(path));

function fail(message) {
  console.error(`sdk build: ${message}`);
  process.exit(1);
}

function checkVersion() {
  const sdk = readJson(join(SDK, "package.json")).version;
  const release = readJson(join(ROOT, "package.json")).version;
  if (sdk !== release) fail(`sdk/package.json version ${sdk} differs from the release ${release} (package.json); set it to ${release}`);
}

function checkInputs() {
  const inputs = [
    "generated/openapi.d.ts",
    "generated/connector-manifest.d.ts",
    "generated/connector-validator.js",
    "generated/webhook-events.ts",
    "spec/connector.schema.json",
  ];
  const missing = inputs.filter((path) => !existsSync(join(ROOT, path)));
  if (missing.length) fail(`missing ${missing.join(", ")}; run npm run codegen at the repository root`);
}

const banner = (source, how) => `// ${how} from ${source} by sdk/scripts/build.mjs; do not edit\n`;

/** Only what SchemaNode reads: the shape of objects and arrays, without prose. */
function structuralSchema(node) {
  if (Array.isArray(node)) return node.map(structuralSchema);
  if (!node || typeof node !== "object") return node;
  const kept = {};
  for (const key of ["$ref", "$defs", "properties", "items", "additionalProperties"]) {
    if (!(key in node)) continue;
    const value = node[key];
    kept[key] =
      key === "$defs" || key === "properties"
        ? Object.fromEntries(Object.entries(value).map(([name, child]) => [name, structuralSchema(child)]))
        : structuralSchema(value);
  }
  return kept;
}

async function bundledValidator() {
  const result = await build({
    ...NEUTRAL_ESM_BUNDLE,
    entryPoints: [join(ROOT, "generated/connector-validator.js")],
  });
  const notice = "// Includes runtime helpers of ajv, ajv-formats and fast-deep-equal (MIT); see THIRD-PARTY-NOTICES.md.\n";
  return banner("generated/connector-validator.js (ajv standalone)", "bundled") + notice + result.outputFiles[0].text;
}

async function stage() {
  rmSync(STAGE, { recursive: true, force: true });
  cpSync(join(SDK, "src"), join(STAGE, "src"), { recursive: true });
  const generated = join(STAGE, "src/generated");
  writeFileSync(join(generated, "openapi.ts"), banner("generated/openapi.d.ts", "copied") + read(join(ROOT, "generated/openapi.d.ts")));
  writeFileSync(
    join(generated, "connector-manifest.ts"),
    banner("generated/connector-manifest.d.ts", "copied") + read(join(ROOT, "generated/connector-manifest.d.ts")),
  );
  writeFileSync(
    join(generated, "webhook-events.ts"),
    banner("generated/webhook-events.ts", "copied") + read(join(ROOT, "generated/webhook-events.ts")),
  );
  rmSync(join(generated, "connector-validator.ts"));
  writeFileSync(join(generated, "connector-validator.js"), await bundledValidator());
  writeFileSync(
    join(generated, "connector-validator.d.ts"),
    banner("generated/connector-validator.d.ts", "declared") +
      `import type { CompiledValidator } from "../connector/compiled-validator.js";\n\nexport declare const validateConnectorManifest: CompiledValidator;\n`,
  );
  writeFileSync(
    join(generated, "connector-schema.ts"),
    banner("spec/connector.schema.json (structural keywords only)", "reduced") +
      `import type { SchemaNode } from "../connector/schema-node.js";\n\n` +
      `export const connectorSchema: SchemaNode = ${JSON.stringify(structuralSchema(readJson(join(ROOT, "spec/connector.schema.json"))))};\n`,
  );
  writeFileSync(
    join(STAGE, "tsconfig.json"),
    JSON.stringify({ extends: "../tsconfig.json", compilerOptions: { noEmit: false, rootDir: "src", outDir: "../dist" }, include: ["src"] }, null, 2),
  );
}

function compile() {
  rmSync(DIST, { recursive: true, force: true });
  const tsc = join(dirname(require.resolve("typescript/package.json")), "bin/tsc");
  try {
    execFileSync(process.execPath, [tsc, "-p", join(STAGE, "tsconfig.json")], { stdio: "inherit" });
  } catch {
    fail("tsc failed");
  }
  // tsc emits neither .js nor .d.ts inputs; the bundled validator is carried over as it is.
  for (const file of ["connector-validator.js", "connector-validator.d.ts"])
    cpSync(join(STAGE, "src/generated", file), join(DIST, "generated", file));
  cpSync(join(ROOT, "spec/connector.schema.json"), join(DIST, "connector.schema.json"));
  chmodSync(join(DIST, "cli.js"), 0o755);
  const notices = ["ajv", "ajv-formats", "fast-deep-equal"].map((name) => {
    const dir = dirname(require.resolve(`${name}/package.json`));
    return `## ${name}\n\n${read(join(dir, "LICENSE")).trim()}\n`;
  });
  writeFileSync(
    join(DIST, "THIRD-PARTY-NOTICES.md"),
    `# Third-party notices\n\ndist/generated/connector-validator.js includes code from these packages.\n\n${notices.join("\n")}`,
  );
}

function* filesUnder(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else yield path;
  }
}

/** Whether a dist file may import `target`: the dependencies, files inside dist, node: builtins in the command. */
function allowedImport(file, target) {
  if (target === "openapi-fetch" || target === "structured-headers") return true;
  if (target.startsWith("node:")) return /(?:^|\/)cli\.(?:js|d\.ts)$/.test(relative(DIST, file));
  if (!target.startsWith(".")) return false;
  const resolved = resolve(dirname(file), target);
  return resolved.startsWith(DIST) && [resolved, resolved.replace(/\.js$/, ".d.ts")].some((candidate) => existsSync(candidate));
}

/** Nothing in dist points outside it (esbuild lists the real imports of .js; .d.ts are read). */
async function checkDist() {
  const problems = [];
  const files = [...filesUnder(DIST)];
  const scripts = files.filter((file) => file.endsWith(".js"));
  const { metafile } = await build({
    entryPoints: scripts,
    bundle: true,
    write: false,
    outdir: STAGE,
    format: "esm",
    platform: "neutral",
    external: ["*"],
    metafile: true,
    logLevel: "silent",
  });
  for (const [input, { imports }] of Object.entries(metafile.inputs)) {
    const file = resolve(input);
    for (const { path, original } of imports)
      if (!allowedImport(file, original ?? path)) problems.push(`${relative(DIST, file)} imports ${original ?? path}`);
  }
  for (const file of files.filter((f) => f.endsWith(".d.ts"))) {
    // Statements only (a line starting with import or export), and import("..."), never comment
    // text: JSDoc examples carry JSON such as "from": 1.
    const text = read(file);
    const targets = [
      ...[...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/gm)].map((m) => m[1]),
      ...[...text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]),
    ];
    for (const target of targets) if (!allowedImport(file, target)) problems.push(`${relative(DIST, file)} imports ${target}`);
  }
  if (problems.length) fail(`dist is not self-contained:\n  ${problems.join("\n  ")}`);
}

const started = Date.now();
checkVersion();
checkInputs();
await stage();
compile();
await checkDist();
rmSync(STAGE, { recursive: true, force: true });
console.log(`sdk build: dist/ written in ${Date.now() - started} ms`);
