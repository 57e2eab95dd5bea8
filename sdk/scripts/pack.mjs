#!/usr/bin/env node
// npm run sdk:pack: builds the package (npm pack runs the prepack script, scripts/build.mjs) and
// writes the tarball to sdk/artifacts/subbridge-sdk-<version>.tgz, the file `npm install <path>`
// takes until the package is on the registry; prints its path.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const SDK = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const ARTIFACTS = join(SDK, "artifacts");
export const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

/** Packs sdk/ into sdk/artifacts and returns the tarball's absolute path. */
export function pack() {
  const { name, version } = JSON.parse(readFileSync(join(SDK, "package.json"), "utf8"));
  // npm's name for the tarball: the scope without its @, joined by a dash.
  const tarball = join(ARTIFACTS, `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`);
  mkdirSync(ARTIFACTS, { recursive: true });
  rmSync(tarball, { force: true });
  // npm's own output (the build's, the file list) goes to stderr: stdout is left for the path.
  execFileSync(NPM, ["pack", "--pack-destination", ARTIFACTS], {
    cwd: SDK,
    stdio: ["ignore", process.stderr, "inherit"],
    env: { ...process.env, npm_config_update_notifier: "false" },
  });
  if (!existsSync(tarball)) throw new Error(`npm pack wrote no ${tarball}`);
  return tarball;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const tarball = pack();
  console.error(`sdk pack: wrote ${relative(process.cwd(), tarball)}; install it elsewhere with npm install ${tarball}`);
  console.log(tarball);
}
