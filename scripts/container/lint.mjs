// The container files' static checks: the Dockerfile through dockerfile-utils (the Docker builder's
// own checks, as the VS Code Docker extension runs them) plus this project's rules for its image, and
// compose.yaml against the Compose Specification's JSON schema (vendored beside this file with its
// licence and notice: schema/compose-spec.json of the compose-spec repository, commit 170098ba of
// 2026-06-23) plus the topology the deployment needs.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv";
import { validate as validateDockerfile } from "dockerfile-utils";
import { parse as parseYaml } from "yaml";
import { parseDockerfile } from "./dockerfile.mjs";

/** The problems found in the Dockerfile, each a line of text; empty when it passes. */
export function lintDockerfile(root) {
  const text = readFileSync(join(root, "Dockerfile"), "utf8");
  const problems = validateDockerfile(text).map(
    (d) => `Dockerfile:${d.range.start.line + 1}: ${d.severity === 1 ? "error" : "warning"}: ${d.message}`,
  );
  const image = parseDockerfile(text);
  const say = (message) => problems.push(`Dockerfile: ${message}`);
  if (image.stages.length < 2) say("should be multi-stage (a build stage, then a runtime stage without the dev dependencies)");
  const runtime = image.stages.at(-1);
  const nodeVersion = image.args.NODE_VERSION;
  if (!/^\d+$/.test(nodeVersion ?? "")) say(`ARG NODE_VERSION should name a Node major line (got ${nodeVersion ?? "none"})`);
  for (const stage of image.stages) {
    if (!/^node:\$\{NODE_VERSION\}-[a-z]+-slim$/.test(stage.from))
      say(`stage ${stage.name ?? "?"} should start FROM node:\${NODE_VERSION}-<debian>-slim (got ${stage.from})`);
  }
  const engines = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).engines?.node ?? "";
  if (
    nodeVersion &&
    !engines.split("||").some(
      (range) =>
        range
          .trim()
          .replace(/^[\^~>=]+/, "")
          .split(".")[0] === nodeVersion,
    )
  )
    say(`NODE_VERSION ${nodeVersion} is not one of the lines package.json's engines declares (${engines})`);
  if (!runtime.user || ["root", "0"].includes(runtime.user.split(":")[0])) say("the runtime stage should run as an unprivileged USER");
  if (!runtime.healthcheck || !runtime.healthcheck.join(" ").includes("/up")) say("the runtime stage should have a HEALTHCHECK that asks /up");
  const startProd = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts["start:prod"].replace(/^exec\s+/, "");
  if (runtime.cmd?.join(" ") !== startProd) say(`CMD should run what npm run start:prod runs (${startProd}), got ${JSON.stringify(runtime.cmd)}`);
  if (runtime.steps.some((s) => s.keyword === "RUN"))
    say("the runtime stage should not RUN anything (prepare files in the build stage and COPY --from them)");
  return problems;
}

/** The services the deployment is made of, and the role each SubBridge process takes. */
const SERVICES = ["api", "worker", "postgres", "pgbouncer", "redis"];
const ROLES = { api: "api", worker: "worker" };

/** The problems found in compose.yaml, each a line of text; empty when it passes. */
export function lintCompose(root) {
  const problems = [];
  const say = (message) => problems.push(`compose.yaml: ${message}`);
  // Compose files use YAML merge keys (<<:) for shared settings, which YAML 1.2 leaves optional.
  const doc = parseYaml(readFileSync(join(root, "compose.yaml"), "utf8"), { merge: true });
  const schema = JSON.parse(readFileSync(new URL("compose-spec.json", import.meta.url), "utf8"));
  // The schema names draft-07 by an https address Ajv does not carry; Ajv's default is draft-07.
  delete schema.$schema;
  const ajv = new Ajv({ allErrors: true, strict: false });
  const check = ajv.compile(schema);
  if (!check(doc))
    for (const e of check.errors) say(`schema: ${e.instancePath || "/"} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`);
  const services = doc?.services ?? {};
  for (const name of SERVICES) if (!services[name]) say(`service ${name} is missing`);
  for (const [name, role] of Object.entries(ROLES)) {
    const env = services[name]?.environment ?? {};
    if (env.ROLE !== role) say(`service ${name} should set ROLE=${role}`);
    if (!/@pgbouncer:/.test(env.DATABASE_URL ?? "")) say(`service ${name}'s DATABASE_URL should go through pgbouncer`);
    if (!/@postgres:/.test(env.DATABASE_DIRECT_URL ?? "")) say(`service ${name}'s DATABASE_DIRECT_URL should reach postgres directly`);
    if (!env.REDIS_URL) say(`service ${name} should set REDIS_URL`);
    if (!env.APP_KEY) say(`service ${name} should set APP_KEY (processes that share a database share it)`);
  }
  return problems;
}
