#!/usr/bin/env node
// Size of what an application ships when it bundles the SDK: each entry of @subbridge/sdk bundled
// with esbuild (minified, platform neutral, openapi-fetch included), then gzipped; openapi-fetch
// alone for comparison. Measures sdk/dist (built first when missing).
// Writes scripts/bench/results/sdk-size.json. Usage: npm run sdk:size
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { NEUTRAL_ESM_BUNDLE } from "../../sdk/scripts/esbuild-options.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const DIST = join(ROOT, "sdk/dist");
const OUT = join(ROOT, "scripts/bench/results/sdk-size.json");

/** What each measured bundle imports: a whole entry, or only what a typical application uses. */
const entries = {
  "@subbridge/sdk (every export)": `export * from ${JSON.stringify(join(DIST, "index.js"))};`,
  "@subbridge/sdk (createClient only, tree-shaken)": `export { createClient } from ${JSON.stringify(join(DIST, "index.js"))};`,
  "@subbridge/sdk/connector": `export * from ${JSON.stringify(join(DIST, "connector/index.js"))};`,
  "@subbridge/sdk/webhooks": `export * from ${JSON.stringify(join(DIST, "webhooks.js"))};`,
  "openapi-fetch (alone, for comparison)": `export * from "openapi-fetch";`,
};

async function bundle(contents, minify) {
  const result = await build({
    ...NEUTRAL_ESM_BUNDLE,
    stdin: { contents, resolveDir: ROOT, loader: "js" },
    minify,
  });
  return result.outputFiles[0].contents;
}

if (!existsSync(join(DIST, "index.js"))) execFileSync(process.execPath, [join(ROOT, "sdk/scripts/build.mjs")], { stdio: "inherit" });

const sizes = {};
for (const [name, contents] of Object.entries(entries)) {
  const raw = await bundle(contents, false);
  const min = await bundle(contents, true);
  sizes[name] = { raw_bytes: raw.length, min_bytes: min.length, min_gzip_bytes: gzipSync(min, { level: 9 }).length };
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} kB`;
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(
  OUT,
  JSON.stringify(
    { $comment: "written by scripts/bench/sdk-size.mjs (esbuild bundle, minify, platform neutral; gzip level 9)", entries: sizes },
    null,
    2,
  ) + "\n",
);
for (const [name, size] of Object.entries(sizes)) {
  console.log(
    `${name.padEnd(48)} raw ${kb(size.raw_bytes).padStart(9)}  min ${kb(size.min_bytes).padStart(9)}  min+gzip ${kb(size.min_gzip_bytes).padStart(8)}`,
  );
}
console.log(`written to ${OUT.slice(ROOT.length + 1)}`);
