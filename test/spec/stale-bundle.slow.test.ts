// Issue 47: after a string field without maxLength was added to a request body, `spec:lint` passed
// on the stale generated/openapi.json and `spec:diff` exited 0 while codegen refused the spec. Both
// now judge spec/ as it is: spec:diff exits 2 on a spec codegen refuses, spec:lint exits 2 on a
// stale or refused bundle. Run in a scratch repository holding this one's spec/ and generated bundle.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TSX = join(ROOT, "node_modules", ".bin", "tsx");
const PROJECTS = join("spec", "openapi", "areas", "projects.yaml");

function script(name: string, cwd: string, args: string[] = []) {
  return spawnSync(TSX, [join(ROOT, "scripts", name), ...args], { cwd, encoding: "utf8" });
}

describe("spec:lint and spec:diff judge spec/ as it is (issue 47)", function () {
  this.timeout(240_000);
  let repo: string;
  let original: string;

  before(() => {
    repo = mkdtempSync(join(tmpdir(), "spec-stale-"));
    execFileSync("sh", ["-c", `git -C "$1" archive HEAD spec package.json redocly.yaml | tar -x -C "$2"`, "sh", ROOT, repo]);
    mkdirSync(join(repo, "generated"));
    copyFileSync(join(ROOT, "generated", "openapi.json"), join(repo, "generated", "openapi.json"));
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.test", "-c", "commit.gpgsign=false", ...args], { cwd: repo });
    git("init", "-q", "-b", "main");
    git("add", "-A");
    git("commit", "-q", "-m", "spec and its bundle");
    original = readFileSync(join(repo, PROJECTS), "utf8");
  });
  after(() => rmSync(repo, { recursive: true, force: true }));
  afterEach(() => writeFileSync(join(repo, PROJECTS), original));

  it("both pass on the committed spec and its fresh bundle", () => {
    const diff = script("spec-diff.ts", repo, ["HEAD"]);
    assert.equal(diff.status, 0, diff.stderr + diff.stdout);
    assert.match(diff.stdout, /No changes to the REST API\./);
    assert.doesNotMatch(diff.stdout, /matches no change/);
    const lint = script("spec-lint.ts", repo);
    assert.equal(lint.status, 0, lint.stderr + lint.stdout);
  });

  it("a request string without maxLength: spec:diff and spec:lint exit 2 with codegen's reason", () => {
    // A property beside the create body's bounded description (its line, whatever its description says).
    const unbounded = original.replace(/^( +)(description: \{type: \[string, 'null'\], maxLength: 1000\b.*\n)/m, "$1$2$1motto: {type: string}\n");
    assert.notEqual(unbounded, original);
    writeFileSync(join(repo, PROJECTS), unbounded);
    const diff = script("spec-diff.ts", repo, ["HEAD"]);
    assert.equal(diff.status, 2, diff.stdout);
    assert.match(diff.stderr, /codegen refuses spec\/.*needs maxLength/s);
    const lint = script("spec-lint.ts", repo);
    assert.equal(lint.status, 2, lint.stdout);
    assert.match(lint.stderr, /needs maxLength/);
  });

  it("an accepted change not yet generated: spec:lint refuses the stale bundle (exit 2), spec:diff compares spec/ and notes it", () => {
    writeFileSync(join(repo, PROJECTS), original.replace(/maxLength: 1000\b/, "maxLength: 2000"));
    const lint = script("spec-lint.ts", repo);
    assert.equal(lint.status, 2, lint.stdout);
    assert.match(lint.stderr, /generated\/openapi\.json is stale or missing.*run npm run codegen/);
    const diff = script("spec-diff.ts", repo, ["HEAD"]);
    assert.equal(diff.status, 0, diff.stderr + diff.stdout);
    assert.match(diff.stdout, /note: generated\/openapi\.json is stale/);
    assert.match(diff.stdout, /Non-breaking changes: 1/);
  });
});
