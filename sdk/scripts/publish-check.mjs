#!/usr/bin/env node
// npm run sdk:publish:check: what `npm publish` would send, checked before any release. Packs the
// package (scripts/pack.mjs), or takes the tarball given as its argument, then on it runs
// `npm publish --dry-run`, publint (strict, every suggestion) and are-the-types-wrong (profile
// node16: ESM and CommonJS under node16 and bundler resolution). Exits non-zero on any problem.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { NPM, SDK, pack } from "./pack.mjs";

const NPX = process.platform === "win32" ? "npx.cmd" : "npx";
const env = { ...process.env, npm_config_update_notifier: "false" };
const failures = [];

function step(name, command, args, extraEnv = {}) {
  console.log(`\nsdk publish check: ${name}`);
  const { status } = spawnSync(command, args, { cwd: SDK, stdio: "inherit", env: { ...env, ...extraEnv } });
  if (status !== 0) failures.push(`${name} (exit ${status})`);
}

const tarball = process.argv[2] ? resolve(process.argv[2]) : pack();
console.log(`sdk publish check: ${tarball}`);

// publishConfig (public access, provenance) is read from the tarball's package.json, as a real publish reads it.
// Its notices are the file list and the access and tag it would publish with, shown even under npm run -s.
step("npm publish --dry-run", NPM, ["publish", "--dry-run", "--workspaces=false", tarball], { npm_config_loglevel: "notice" });

console.log("\nsdk publish check: publint --strict");
const buffer = readFileSync(tarball);
const { messages, pkg } = await publint({
  pack: { tarball: buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) },
  level: "suggestion",
  strict: true,
});
for (const message of messages) console.log(`${message.type}: ${formatMessage(message, pkg)}`);
if (messages.length) failures.push(`publint (${messages.length} messages)`);
else console.log("no problem");

// ascii, not auto: auto picks a table or a list by the terminal's width, so the output would differ between a laptop and CI.
step("are-the-types-wrong --profile node16", NPX, ["--no-install", "attw", tarball, "--profile", "node16", "--format", "ascii"]);

if (failures.length) {
  console.error(`\nsdk publish check failed: ${failures.join(", ")}`);
  process.exit(1);
}
console.log(`\nsdk publish check: ${tarball} is ready to publish`);
