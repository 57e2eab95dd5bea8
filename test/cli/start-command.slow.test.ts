// `npm start` (scripts/start.sh) runs the compiled build when no TypeScript source changed since it
// was built, and the sources through tsx otherwise, saying why. Run here in a copy of the layout it
// reads, with a stand-in `node` on PATH that prints what it was asked to run.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/processes.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** A checkout's layout: src/, generated/, sdk/src/ and the launcher with its build check, all dated `at`. */
function layout(at: Date): string {
  const dir = tempDir("start-command");
  for (const folder of ["scripts", "src", "generated", "sdk/src", "dist/src", "bin"]) mkdirSync(join(dir, folder), { recursive: true });
  for (const script of ["scripts/start.sh", "scripts/build-is-current.sh"]) copyFileSync(join(ROOT, script), join(dir, script));
  for (const file of ["src/main.ts", "generated/operations.ts", "sdk/src/index.ts", "dist/src/main.js"]) {
    writeFileSync(join(dir, file), "");
    utimesSync(join(dir, file), at, at);
  }
  writeFileSync(join(dir, "bin/node"), '#!/bin/sh\necho "node $*"\n');
  chmodSync(join(dir, "bin/node"), 0o755);
  return dir;
}

function stampBuild(dir: string, at: Date) {
  writeFileSync(join(dir, "dist/.built"), "");
  utimesSync(join(dir, "dist/.built"), at, at);
}

function start(dir: string): { stdout: string; stderr: string } {
  const run = spawnSync("sh", [join(dir, "scripts/start.sh")], { env: { PATH: `${join(dir, "bin")}:/usr/bin:/bin` }, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  return { stdout: run.stdout.trim(), stderr: run.stderr.trim() };
}

describe("npm start: the compiled build when it is current, else the sources", () => {
  const hourAgo = new Date(Date.now() - 3_600_000);

  it("runs dist/src/main.js when the build is newer than every TypeScript source", () => {
    const dir = layout(hourAgo);
    stampBuild(dir, new Date());
    assert.deepEqual(start(dir), { stdout: "node --max-semi-space-size=4 dist/src/main.js", stderr: "" });
  });

  it("runs the sources through tsx, saying why, once a source (src, generated or the SDK's) changed after the build", () => {
    for (const changed of ["src/main.ts", "generated/operations.ts", "sdk/src/index.ts"]) {
      const dir = layout(hourAgo);
      stampBuild(dir, new Date(Date.now() - 60_000));
      utimesSync(join(dir, changed), new Date(), new Date());
      const { stdout, stderr } = start(dir);
      assert.equal(stdout, "node --import tsx --conditions=subbridge-source src/main.ts", changed);
      assert.match(stderr, /sources changed since the last build.*npm run build/);
    }
  });

  it("runs the sources through tsx when there is no build", () => {
    const { stdout, stderr } = start(layout(hourAgo));
    assert.equal(stdout, "node --import tsx --conditions=subbridge-source src/main.ts");
    assert.match(stderr, /no compiled build/);
  });
});
