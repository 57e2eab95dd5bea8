#!/usr/bin/env node
// Builds the publishable package into sdk/dist: ES modules in dist/ and CommonJS in dist/cjs/ (a
// package.json there says so), each with its own declarations. Deterministic and offline.
//
// The generated inputs are not kept under sdk/ in git: sdk/src/generated/ holds stand-ins that
// re-export ../generated and ../spec, so the sources typecheck and run in the repository. This
// script compiles a staged copy of sdk/src (sdk/.build/esm and sdk/.build/cjs) in which the
// stand-ins are replaced by
//   generated/<name>.ts or generated/<name>.d.ts              -> copied, for every stand-in that
//       only re-exports ../../../generated/<name>.js (openapi, connector-manifest, webhook-events, ...)
//   generated/connector-validator.js                            -> bundled with esbuild together
//       with the few ajv / ajv-formats runtime helpers it imports, so the package's
//       dependencies stay openapi-fetch and structured-headers (RFC 9421 verification)
//   spec/connector.schema.json                                  -> the structural keywords the
//       problem messages read (and the whole schema as dist/connector.schema.json)
// then runs tsc (TypeScript from the repository's node_modules) once per module format and checks
// that nothing in dist points outside it and that each file is in its folder's format.
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { NEUTRAL_ESM_BUNDLE } from "./esbuild-options.mjs";

const SDK = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const ROOT = resolve(SDK, "..");
const STAGE = join(SDK, ".build");
const DIST = join(SDK, "dist");
const CJS_DIST = join(DIST, "cjs");
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

const GENERATED = "src/generated";
/** A stand-in that only re-exports one generated module: `export [type] * from "../../../generated/<name>.js";`. */
const RE_EXPORT = /^export (?:type )?\* from "\.\.\/\.\.\/\.\.\/generated\/([\w-]+)\.js";$/;
/** The stand-ins the build replaces by a file of its own making (see stage), and what they are made from. */
const MADE = { "connector-validator.ts": "generated/connector-validator.js", "connector-schema.ts": "spec/connector.schema.json" };

/** Each stand-in of sdk/src/generated/ with the repository file that replaces it. */
function standIns() {
  return readdirSync(join(SDK, GENERATED))
    .sort()
    .map((file) => {
      if (MADE[file]) return { file, source: MADE[file], copied: false };
      const statements = read(join(SDK, GENERATED, file))
        .split("\n")
        .filter((line) => line.trim() && !line.startsWith("//"));
      const name = statements.length === 1 ? RE_EXPORT.exec(statements[0])?.[1] : undefined;
      if (!name) fail(`${GENERATED}/${file} is neither a stand-in that only re-exports ../../../generated/<name>.js nor one the build makes`);
      const source = [`generated/${name}.ts`, `generated/${name}.d.ts`].find((path) => existsSync(join(ROOT, path))) ?? `generated/${name}.ts`;
      return { file, source, copied: true };
    });
}

function checkInputs() {
  const missing = standIns()
    .map(({ source }) => source)
    .filter((path) => !existsSync(join(ROOT, path)));
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

async function bundledValidator(format) {
  const result = await build({
    ...NEUTRAL_ESM_BUNDLE,
    format,
    entryPoints: [join(ROOT, "generated/connector-validator.js")],
  });
  const notice = "// Includes runtime helpers of ajv, ajv-formats and fast-deep-equal (MIT); see THIRD-PARTY-NOTICES.md.\n";
  return banner("generated/connector-validator.js (ajv standalone)", "bundled") + notice + result.outputFiles[0].text;
}

/** The sources of the CommonJS files package.json's exports name (./dist/cjs/<path>.js from src/<path>.ts). */
function cjsEntryPoints() {
  const targets = Object.values(readJson(join(SDK, "package.json")).exports).flatMap((target) =>
    typeof target === "object" && target.require ? [target.require.default] : [],
  );
  return targets.map((target) => target.replace(/^\.\/dist\/cjs\/(.*)\.js$/, "src/$1.ts"));
}

/**
 * The two staged copies of src: one under a package.json of type module, compiled to dist/, one
 * of type commonjs compiled to dist/cjs/ (entry points only; the command stays ESM). tsc takes each
 * file's format from the nearest package.json, as Node does.
 */
const FORMATS = [
  { type: "module", esbuild: "esm", outDir: DIST, compilerOptions: {}, include: ["src"] },
  {
    type: "commonjs",
    esbuild: "cjs",
    outDir: CJS_DIST,
    // verbatimModuleSyntax forbids import statements in a CommonJS file; tsc turns them into require.
    compilerOptions: { verbatimModuleSyntax: false },
    files: cjsEntryPoints(),
  },
];

async function stage({ type, esbuild, outDir, compilerOptions, include, files }) {
  const dir = join(STAGE, type);
  cpSync(join(SDK, "src"), join(dir, "src"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type }) + "\n");
  const generated = join(dir, GENERATED);
  for (const { file, source, copied } of standIns())
    if (copied) writeFileSync(join(generated, file), banner(source, "copied") + read(join(ROOT, source)));
  rmSync(join(generated, "connector-validator.ts"));
  writeFileSync(join(generated, "connector-validator.js"), await bundledValidator(esbuild));
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
    join(dir, "tsconfig.json"),
    JSON.stringify(
      {
        extends: "../../tsconfig.json",
        compilerOptions: { noEmit: false, noEmitOnError: true, rootDir: "src", outDir: relative(dir, outDir), ...compilerOptions },
        ...(include ? { include } : { files, include: [] }),
      },
      null,
      2,
    ),
  );
  return dir;
}

function compile(dir, outDir, type) {
  const tsc = join(dirname(require.resolve("typescript/package.json")), "bin/tsc");
  try {
    execFileSync(process.execPath, [tsc, "-p", join(dir, "tsconfig.json")], { stdio: "inherit" });
  } catch {
    fail(`tsc failed (${type})`);
  }
  // tsc emits neither .js nor .d.ts inputs; the bundled validator is carried over as it is.
  for (const file of ["connector-validator.js", "connector-validator.d.ts"]) cpSync(join(dir, GENERATED, file), join(outDir, "generated", file));
  if (outDir === CJS_DIST) writeFileSync(join(CJS_DIST, "package.json"), JSON.stringify({ type: "commonjs" }) + "\n");
}

function finish() {
  cpSync(join(ROOT, "spec/connector.schema.json"), join(DIST, "connector.schema.json"));
  chmodSync(join(DIST, "cli.js"), 0o755);
  const notices = ["ajv", "ajv-formats", "fast-deep-equal"].map((name) => {
    const dir = dirname(require.resolve(`${name}/package.json`));
    return `## ${name}\n\n${read(join(dir, "LICENSE")).trim()}\n`;
  });
  writeFileSync(
    join(DIST, "THIRD-PARTY-NOTICES.md"),
    `# Third-party notices\n\ndist/generated/connector-validator.js and dist/cjs/generated/connector-validator.js include code from these packages.\n\n${notices.join("\n")}`,
  );
}

function* filesUnder(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else yield path;
  }
}

/**
 * Whether a dist file may import `target`: the dependencies, files inside dist, node: builtins in the
 * Node-only modules (the command, and the package loader of @subbridge/sdk/connector/package).
 */
function allowedImport(file, target) {
  if (target === "openapi-fetch" || target === "structured-headers") return true;
  if (target.startsWith("node:")) return /(?:^|\/)(?:cli|connector\/package)\.(?:js|d\.ts)$/.test(relative(DIST, file));
  if (!target.startsWith(".")) return false;
  const resolved = resolve(dirname(file), target);
  return resolved.startsWith(DIST) && [resolved, resolved.replace(/\.js$/, ".d.ts")].some((candidate) => existsSync(candidate));
}

/**
 * Nothing in dist points outside it (esbuild lists the real imports of .js; .d.ts are read), and
 * every script is in its folder's format: CommonJS under dist/cjs, ES modules elsewhere.
 */
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
  for (const [input, { imports, format }] of Object.entries(metafile.inputs)) {
    const file = resolve(input);
    const expected = file.startsWith(CJS_DIST + "/") ? "cjs" : "esm";
    if (format !== expected) problems.push(`${relative(DIST, file)} is ${format ?? "neither ESM nor CommonJS"}, not ${expected}`);
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

/**
 * One build at a time per checkout: two at once (npm pack's prepack beside a release rehearsal)
 * wiped each other's staging folder. mkdir is atomic; a lock older than ten minutes is a crashed
 * build's and is taken over.
 */
const LOCK = join(SDK, ".build.lock");
function takeLock() {
  const waitUntil = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      // Released however the build ends (fail() exits the process).
      process.once("exit", () => rmSync(LOCK, { recursive: true, force: true }));
      return;
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
      let age = 0;
      try {
        age = Date.now() - statSync(LOCK).mtimeMs;
      } catch {
        continue; // released meanwhile
      }
      if (age > 10 * 60_000 || Date.now() > waitUntil) rmSync(LOCK, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
}

/**
 * Everything the build reads, hashed: the SDK's sources, scripts and package files, the generated
 * modules and schema it copies, the release version and the compilers' versions.
 */
function inputsHash() {
  const hash = createHash("sha256");
  const add = (path) => {
    hash.update(relative(ROOT, path) + "\0");
    hash.update(readFileSync(path));
    hash.update("\0");
  };
  for (const dir of ["src", "scripts"]) for (const file of filesUnder(join(SDK, dir))) add(file);
  for (const file of ["sdk/package.json", "sdk/tsconfig.json", "package.json", "spec/connector.schema.json", "generated/connector-validator.js"])
    add(join(ROOT, file));
  for (const { source } of standIns()) add(join(ROOT, source));
  for (const name of ["typescript", "esbuild", "ajv", "ajv-formats", "fast-deep-equal"])
    hash.update(`${name}@${readJson(require.resolve(`${name}/package.json`)).version}\0`);
  return hash.digest("hex");
}

/**
 * A build whose inputs are unchanged leaves dist/ alone: removing and rewriting it would pull the
 * files from under whatever reads them meanwhile (a server loading the SDK, npm pack collecting the
 * tarball after another pack's prepack).
 */
const STAMP = join(SDK, ".build.stamp");
function current(hash) {
  try {
    const stamp = readJson(STAMP);
    return stamp.inputs === hash && stamp.files.every((file) => existsSync(join(DIST, file)));
  } catch {
    return false;
  }
}

const started = Date.now();
checkVersion();
checkInputs();
takeLock();
const inputs = inputsHash();
if (current(inputs)) {
  console.log(`sdk build: dist/ is current (inputs unchanged), checked in ${Date.now() - started} ms`);
  process.exit(0);
}
rmSync(STAMP, { force: true });
rmSync(STAGE, { recursive: true, force: true });
rmSync(DIST, { recursive: true, force: true });
for (const format of FORMATS) compile(await stage(format), format.outDir, format.type);
finish();
await checkDist();
rmSync(STAGE, { recursive: true, force: true });
writeFileSync(STAMP, JSON.stringify({ inputs, files: [...filesUnder(DIST)].map((file) => relative(DIST, file)) }) + "\n");
console.log(`sdk build: dist/ (ESM) and dist/cjs/ (CommonJS) written in ${Date.now() - started} ms`);
