// The release rehearsal CI runs (`npm run -s sdk:release -- --dry-run`): packs and checks the tarball,
// then `npm publish ./artifacts/<tarball> --tag <dist-tag> --provenance --dry-run`, the command the
// release workflow runs without --dry-run. Issue 47: the README's `npm publish artifacts/...` failed on npm 11.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

describe("sdk release rehearsal (npm run sdk:release -- --dry-run)", function () {
  this.timeout(300_000);

  it("checks the tarball and rehearses its publish under the version's dist-tag", () => {
    const { version } = JSON.parse(readFileSync(new URL("../../sdk/package.json", import.meta.url), "utf8")) as { version: string };
    const tag = version.includes("-") ? "next" : "latest";
    const run = spawnSync("npm", ["run", "-s", "sdk:release", "--", "--dry-run"], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, GITHUB_REF_TYPE: "", GITHUB_REF_NAME: "" },
    });
    const output = `${run.stdout}\n${run.stderr}`;
    assert.equal(run.status, 0, output);
    assert.match(output, new RegExp(`sdk publish check: .*subbridge-sdk-${version.replaceAll(".", "\\.")}\\.tgz is ready to publish`));
    assert.match(output, new RegExp(`with tag ${tag} and public access \\(dry-run\\)`));
    assert.match(output, new RegExp(`sdk release: rehearsed @subbridge/sdk@${version.replaceAll(".", "\\.")} \\(${tag}\\)`));
  });
});
