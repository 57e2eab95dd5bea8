// The SDK's release (issue 47): .github/workflows/release.yml publishes on a tag push through
// sdk/scripts/release.mjs, which CI rehearses with --dry-run. No YAML linter is installed, so the
// workflow's shape is checked here: the trigger, the OIDC permission provenance needs, the script it runs.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SCRIPT = fileURLToPath(new URL("../../sdk/scripts/release.mjs", import.meta.url));

interface Release {
  distTagFor(version: string): string;
  tagProblem(ref: string, version: string): string | null;
  publishArguments(tarball: string, version: string, options: { dryRun: boolean }): string[];
}
const release = (await import(SCRIPT)) as Release;

describe("sdk release", () => {
  it("publishes a prerelease under the next dist-tag and any other version under latest", () => {
    assert.equal(release.distTagFor("3.0.0"), "latest");
    assert.equal(release.distTagFor("3.1.0-rc.1"), "next");
    assert.equal(release.distTagFor("4.0.0-beta"), "next");
    assert.equal(release.distTagFor("3.0.1+build.7"), "latest");
    assert.throws(() => release.distTagFor("v3.0.0"), /not a semantic version/);
  });

  it("publishes the checked tarball as ./artifacts/<file> (npm 11 reads artifacts/<file> as a GitHub shorthand), with provenance", () => {
    const args = release.publishArguments("/repo/sdk/artifacts/subbridge-sdk-3.1.0-rc.1.tgz", "3.1.0-rc.1", { dryRun: true });
    assert.deepEqual(args.slice(0, 4), ["publish", "./artifacts/subbridge-sdk-3.1.0-rc.1.tgz", "--tag", "next"]);
    assert.ok(args.includes("--provenance") && args.includes("--dry-run"));
    assert.ok(!release.publishArguments("/x/subbridge-sdk-3.0.0.tgz", "3.0.0", { dryRun: false }).includes("--dry-run"));
  });

  it("refuses a tag that names another version, before packing anything", () => {
    assert.equal(release.tagProblem("v3.0.0", "3.0.0"), null);
    assert.equal(release.tagProblem("sdk-v3.0.0", "3.0.0"), null);
    assert.match(release.tagProblem("v3.0.1", "3.0.0") ?? "", /does not name the SDK's version 3\.0\.0/);
    const run = spawnSync(process.execPath, [SCRIPT, "--tag", "v0.0.1"], { cwd: ROOT, encoding: "utf8" });
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stderr, /the tag v0\.0\.1 does not name the SDK's version/);
    const untagged = spawnSync(process.execPath, [SCRIPT], { cwd: ROOT, encoding: "utf8", env: { ...process.env, GITHUB_REF_TYPE: "branch" } });
    assert.equal(untagged.status, 1);
    assert.match(untagged.stderr, /use --dry-run/);
  });

  it("has a release workflow that runs on a version tag, with the OIDC token provenance needs, and runs the same script", () => {
    const workflow = parse(readFileSync(new URL("../../.github/workflows/release.yml", import.meta.url), "utf8")) as any;
    assert.equal(typeof workflow.name, "string");
    const tags: string[] = workflow.on.push.tags;
    assert.ok(tags.length > 0 && tags.every((tag) => tag.startsWith("v")), JSON.stringify(tags));
    assert.equal(workflow.on.pull_request, undefined, "a release runs on a tag push only");
    assert.deepEqual(workflow.permissions, { contents: "read" });
    const jobs = Object.values(workflow.jobs) as any[];
    assert.equal(jobs.length, 1);
    const [job] = jobs;
    assert.equal(job.permissions["id-token"], "write");
    assert.equal(typeof job["runs-on"], "string");
    const steps: { uses?: string; run?: string; with?: Record<string, unknown> }[] = job.steps;
    for (const step of steps) {
      assert.ok((step.uses === undefined) !== (step.run === undefined), `a step both uses and runs, or neither: ${JSON.stringify(step)}`);
      if (step.uses) assert.match(step.uses, /^[\w-]+\/[\w-]+@v\d+$/, "actions pinned to a major version");
    }
    assert.equal(steps.find((s) => s.uses?.startsWith("actions/setup-node@"))?.with?.["registry-url"], "https://registry.npmjs.org");
    const runs = steps.flatMap((s) => (s.run ? [s.run] : []));
    assert.ok(runs.includes("npm ci --no-audit --no-fund"));
    assert.ok(runs.includes("npm run -s sdk:release"), runs.join("\n"));
    const scripts = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { scripts: Record<string, string> }).scripts;
    assert.equal(scripts["sdk:release"], "node sdk/scripts/release.mjs");
  });
});
