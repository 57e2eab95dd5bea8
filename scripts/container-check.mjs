#!/usr/bin/env node
// npm run container:check [-- --lint-only]: what CI does for the Dockerfile and compose.yaml on
// machines without a container engine. It lints both files (scripts/container/lint.mjs), then runs
// the image's own commands outside a container (scripts/container/run-image.mjs): the build stage's
// install and build in a copy of the build context, the runtime stage assembled from it, and the
// image's CMD started as an unprivileged user until its HEALTHCHECK on /up passes.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { lintCompose, lintDockerfile } from "./container/lint.mjs";
import { runImage } from "./container/run-image.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const problems = [...lintDockerfile(ROOT), ...lintCompose(ROOT)];
for (const problem of problems) console.error(problem);
if (problems.length) {
  console.error(`container:check: ${problems.length} problem(s) in Dockerfile or compose.yaml`);
  process.exit(1);
}
console.log("container:check: Dockerfile and compose.yaml pass their checks");
if (process.argv.includes("--lint-only")) process.exit(0);

try {
  await runImage(ROOT);
  console.log("container:check: the image's commands built, started as an unprivileged user and answered /up");
} catch (error) {
  console.error(`container:check: ${error.message}`);
  process.exit(1);
}
