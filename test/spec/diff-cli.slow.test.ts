// `npm run spec:diff -- <git-ref>` end to end: git refs resolved in throwaway repositories (the
// real repository is only read), exit status 1 on a breaking change, 0 without, 2 when there is
// nothing to compare; --json and --changelog.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../../codegen/sources.ts";
import { tinySpec, tinySpecWith } from "./tiny-spec.ts";

const TSX = join(ROOT, "node_modules", ".bin", "tsx");
const CLI = join(ROOT, "scripts", "spec-diff.ts");

/** The environment without anything that would point git at another repository. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const key of Object.keys(env)) if (key.startsWith("GIT_")) delete env[key];
  return { ...env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
}

function specDiff(cwd: string, args: string[], env: Record<string, string> = {}) {
  const run = spawnSync(TSX, [CLI, ...args], { cwd, encoding: "utf8", env: cleanEnv(env) });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=Spec Diff Test", "-c", "user.email=spec-diff@example.test", "-c", "commit.gpgsign=false", ...args], {
    cwd,
    encoding: "utf8",
    env: cleanEnv(),
  });
}

function writeJson(path: string, value: unknown) {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, JSON.stringify(value, null, 2) + "\n");
}

describe("spec:diff command", function () {
  this.timeout(120_000);
  let repo: string;

  before(() => {
    // commits: HEAD~2 no description, HEAD~1 the tiny spec, HEAD a required response field removed
    repo = mkdtempSync(join(tmpdir(), "spec-diff-repo-"));
    git(repo, "init", "-q", "-b", "main");
    writeFileSync(join(repo, "README.md"), "tiny\n");
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", "no description yet");
    writeJson(join(repo, "package.json"), { name: "tiny", version: "1.2.3" });
    writeJson(join(repo, "generated", "openapi.json"), tinySpec());
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", "tiny spec");
    writeJson(
      join(repo, "generated", "openapi.json"),
      tinySpecWith((doc) => {
        const team = doc.components.schemas.Team;
        delete team.properties.personal;
        team.required = team.required.filter((f: string) => f !== "personal");
      }),
    );
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", "drop personal");
  });
  after(() => rmSync(repo, { recursive: true, force: true }));

  it("fails (exit 1) when a required response field was removed between two refs", () => {
    const run = specDiff(repo, ["HEAD~1", "HEAD"]);
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stdout, /^API changes from HEAD~1 \([0-9a-f]{12}\) to HEAD \([0-9a-f]{12}\)/);
    assert.match(
      run.stdout,
      /Breaking changes \(not allowed within \/v1\): 1\n {2}- \[removed\] GET \/v1\/teams\/current \(get_current_team\): response 200: field `data.personal` removed/,
    );
  });

  it("compares the working tree with a ref when no head ref is given", () => {
    assert.equal(specDiff(repo, ["HEAD~1"]).status, 1);
    const same = specDiff(repo, ["HEAD"]);
    assert.equal(same.status, 0, same.stderr);
    assert.match(same.stdout, /No changes to the REST API\./);
  });

  it("passes (exit 0) without breaking changes", () => {
    const run = specDiff(repo, ["HEAD", "HEAD~1"]); // adding the field back is additive
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /Non-breaking changes: 1/);
    assert.match(run.stdout, /No breaking changes\./);
  });

  it("prints the report as JSON with --json", () => {
    const run = specDiff(repo, ["--json", "HEAD~1", "HEAD"]);
    assert.equal(run.status, 1);
    const report = JSON.parse(run.stdout);
    assert.equal(report.breaking, 1);
    assert.equal(report.non_breaking, 0);
    assert.deepEqual(report.changes[0].operations, [{ method: "GET", path: "/v1/teams/current", operationId: "get_current_team" }]);
    assert.equal(report.changes[0].what, "field `data.personal` removed");
  });

  it("prints a Markdown changelog entry with --changelog, dated from --date or SPEC_CHANGELOG_DATE", () => {
    const run = specDiff(repo, ["--changelog", "HEAD~1", "HEAD", "--date", "2026-01-02"]);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stdout,
      "## [1.2.3] - 2026-01-02\n\n### Breaking\n\n- `GET /v1/teams/current` (`get_current_team`): response 200: field `data.personal` removed.\n",
    );
    const fromEnv = specDiff(repo, ["--changelog", "HEAD~1", "HEAD", "--release", "2.0.0"], { SPEC_CHANGELOG_DATE: "2026-03-04" });
    assert.match(fromEnv.stdout, /^## \[2\.0\.0\] - 2026-03-04\n/);
  });

  it("exits 2 when the ref is unknown or has no API description", () => {
    const unknown = specDiff(repo, ["no-such-ref"]);
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /unknown git ref "no-such-ref"/);
    const empty = specDiff(repo, ["HEAD~2"]);
    assert.equal(empty.status, 2);
    assert.match(empty.stderr, /neither generated\/openapi\.json nor spec\/openapi\/openapi\.yaml/);
    assert.equal(specDiff(repo, []).status, 2);
  });

  it("bundles a ref's spec/ with the current codegen when it has no committed bundle", () => {
    const specOnly = mkdtempSync(join(tmpdir(), "spec-diff-spec-only-"));
    try {
      // the real repository's committed spec/, read with git archive (no change to its state)
      execFileSync("sh", ["-c", `git -C "$1" archive HEAD spec | tar -x -C "$2"`, "sh", ROOT, specOnly], { env: cleanEnv() });
      git(specOnly, "init", "-q", "-b", "main");
      git(specOnly, "add", "-A");
      git(specOnly, "commit", "-q", "-m", "spec only");
      const run = specDiff(specOnly, ["HEAD"]);
      assert.equal(run.status, 0, run.stderr + run.stdout);
      assert.match(run.stdout, /note: HEAD \([0-9a-f]{12}\) has no generated\/openapi\.json; bundled its spec\/ with the current codegen instead/);
      assert.match(run.stdout, /note: generated\/openapi\.json is missing/);
      assert.match(run.stdout, /No changes to the REST API\./);
    } finally {
      rmSync(specOnly, { recursive: true, force: true });
    }
  });

  it("finds no change between this repository's HEAD and itself", () => {
    const run = specDiff(ROOT, ["HEAD", "HEAD"]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /No changes to the REST API\./);
  });
});
