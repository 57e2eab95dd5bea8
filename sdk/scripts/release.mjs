#!/usr/bin/env node
// npm run sdk:release [-- --dry-run]: publishes the SDK as .github/workflows/release.yml does on a
// tag push, and as CI rehearses it with --dry-run. Checks the tag (GITHUB_REF_NAME on a tag push)
// names the package's version, packs and checks the tarball (publish-check.mjs), then runs
// `npm publish ./artifacts/<tarball> --tag <dist-tag> --provenance`: a prerelease version (1.2.0-rc.1)
// goes to the `next` dist-tag, any other to `latest`, so a release candidate never becomes the default install.
// The tarball is named `./artifacts/...`: npm 11 reads `artifacts/x.tgz` as a GitHub shorthand (owner/repo).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const SDK = fileURLToPath(new URL("..", import.meta.url));
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

/** The dist-tag a version is published under: `next` for a prerelease (a `-` after the patch number), else `latest`. */
export function distTagFor(version) {
  if (!/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.test(version)) throw new Error(`${version} is not a semantic version`);
  return /^\d+\.\d+\.\d+-/.test(version) ? "next" : "latest";
}

/** Why the git tag `ref` does not release `version` (`v<version>` or `sdk-v<version>`), or null when it does. */
export function tagProblem(ref, version) {
  return ref === `v${version}` || ref === `sdk-v${version}` ? null : `the tag ${ref} does not name the SDK's version ${version} (tag v${version})`;
}

/** The arguments of the `npm publish` that releases `tarball` (a file in sdk/artifacts). */
export function publishArguments(tarball, version, { dryRun }) {
  return [
    "publish",
    `./artifacts/${basename(tarball)}`,
    "--tag",
    distTagFor(version),
    "--provenance",
    "--access",
    "public",
    "--workspaces=false",
    ...(dryRun ? ["--dry-run"] : []),
  ];
}

function fail(message) {
  console.error(`sdk release: ${message}`);
  process.exit(1);
}

function run(args) {
  const { values } = parseArgs({ args, options: { "dry-run": { type: "boolean", default: false }, tag: { type: "string" } } });
  const dryRun = values["dry-run"];
  const { version } = JSON.parse(readFileSync(join(SDK, "package.json"), "utf8"));
  const ref = values.tag ?? (process.env.GITHUB_REF_TYPE === "tag" ? process.env.GITHUB_REF_NAME : undefined);
  if (ref) {
    const problem = tagProblem(ref, version);
    if (problem) fail(problem);
  } else if (!dryRun) fail("a release is published from its tag (GITHUB_REF_NAME on a tag push, or --tag v<version>); without one, use --dry-run");
  console.log(`sdk release: @subbridge/sdk ${version} to dist-tag ${distTagFor(version)}${dryRun ? " (dry run)" : ""}`);

  // The checked tarball is the one published: publish-check packs it into sdk/artifacts/ and checks it.
  const check = spawnSync(process.execPath, [join(SDK, "scripts", "publish-check.mjs")], { cwd: SDK, stdio: "inherit" });
  if (check.status !== 0) fail(`the publish check failed (exit ${check.status})`);
  const tarball = join(SDK, "artifacts", `subbridge-sdk-${version}.tgz`);
  const publish = spawnSync(NPM, publishArguments(tarball, version, { dryRun }), {
    cwd: SDK,
    stdio: "inherit",
    env: { ...process.env, npm_config_update_notifier: "false", npm_config_loglevel: "notice" },
  });
  if (publish.status !== 0) fail(`npm publish failed (exit ${publish.status})`);
  console.log(`sdk release: ${dryRun ? "rehearsed" : "published"} @subbridge/sdk@${version} (${distTagFor(version)})`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) run(process.argv.slice(2));
