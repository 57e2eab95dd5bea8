#!/usr/bin/env node
// What a browser downloads to open the dashboard: the scripts and styles index.html loads at once
// (its module script, modulepreloads and stylesheets), each gzipped at level 9. Measures
// dashboard/dist (npm run build:dashboard first when missing). Issue 44's budget: initial
// JavaScript at most 250 kB gzip. Writes scripts/bench/results/dashboard-size.json. Usage: npm run dashboard:size
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const DIST = join(ROOT, "dashboard/dist");
const OUT = join(ROOT, "scripts/bench/results/dashboard-size.json");
const BUDGET_JS_GZIP = 250 * 1024;

if (!existsSync(join(DIST, "index.html"))) execFileSync("npm", ["run", "-s", "build:dashboard"], { cwd: ROOT, stdio: "inherit" });
const html = readFileSync(join(DIST, "index.html"), "utf8");
const loaded = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*\shref)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);

const files = {};
for (const path of loaded) {
  const bytes = readFileSync(join(DIST, path));
  files[path.replace(/-[A-Za-z0-9_-]{8}\./, ".")] = { raw_bytes: bytes.length, gzip_bytes: gzipSync(bytes, { level: 9 }).length };
}
const total = (ext) =>
  Object.entries(files)
    .filter(([p]) => p.endsWith(ext))
    .reduce((sum, [, f]) => sum + f.gzip_bytes, 0);
const result = {
  $comment: "written by scripts/bench/dashboard-size.mjs (what index.html loads at once; gzip level 9)",
  initial_js_gzip_bytes: total(".js"),
  initial_css_gzip_bytes: total(".css"),
  budget_js_gzip_bytes: BUDGET_JS_GZIP,
  within_budget: total(".js") <= BUDGET_JS_GZIP,
  files,
};
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} kB`;
console.log(
  `initial JavaScript ${kb(result.initial_js_gzip_bytes)} gzip (budget ${kb(BUDGET_JS_GZIP)}), CSS ${kb(result.initial_css_gzip_bytes)} gzip`,
);
console.log(`written to ${OUT.slice(ROOT.length + 1)}`);
if (!result.within_budget) process.exitCode = 1;
