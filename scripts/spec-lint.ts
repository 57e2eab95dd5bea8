// npm run spec:lint [-- <redocly lint options>]
//
// Lints what clients see, generated/openapi.json, with the rule set in redocly.yaml, but only when
// that file is what spec/ produces now: linting a stale bundle would pass a spec codegen refuses.
// Exit status: redocly's (0 clean, 1 problems found), or 2 when spec/ is refused by codegen or
// generated/openapi.json is stale or missing (run npm run codegen first). Read-only.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BUNDLED_SPEC, repositoryRoot, specInWorkingTree, SpecSourceError } from "./spec/spec-source.ts";

/** This checkout, where redocly is installed (the linted repository may be another, in tests). */
const TOOLS = fileURLToPath(new URL("..", import.meta.url));

function refuse(message: string): never {
  process.stderr.write(`spec-lint: ${message}\n`);
  process.exit(2);
}

function main() {
  let root: string;
  let fresh: boolean;
  try {
    root = repositoryRoot(process.cwd());
    if (!existsSync(join(root, "spec", "openapi", "openapi.yaml"))) refuse(`${root} has no spec/openapi/openapi.yaml`);
    ({ fresh } = specInWorkingTree(root));
  } catch (err) {
    refuse(err instanceof SpecSourceError ? err.message : `could not bundle spec/: ${(err as Error).message}`);
  }
  if (!fresh) refuse(`${BUNDLED_SPEC} is stale or missing (it is not what spec/ produces now): run npm run codegen, then lint again`);
  const config = existsSync(join(root, "redocly.yaml")) ? join(root, "redocly.yaml") : join(TOOLS, "redocly.yaml");
  const run = spawnSync(
    join(TOOLS, "node_modules", ".bin", "redocly"),
    ["lint", "--config", config, ...process.argv.slice(2), join(root, BUNDLED_SPEC)],
    {
      stdio: "inherit",
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    },
  );
  if (run.error) refuse(`could not run redocly: ${run.error.message}`);
  process.exitCode = run.status ?? 2;
}

main();
