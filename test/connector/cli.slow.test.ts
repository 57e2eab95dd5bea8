// subbridge-connector as a real process (the bin through tsx): exit status 0 valid / 1 invalid / 2
// usage or I/O error. The wording is checked in-process (cli.test.ts).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./manifest-files.ts";

const TELEGRAM = join(ROOT, "connectors/telegram/connector.json");
const VERSION = (JSON.parse(readFileSync(TELEGRAM, "utf8")) as { version: string }).version.replaceAll(".", "\\.");
const TAGLINE_TOO_LONG = join(ROOT, "test/fixtures/manifests/invalid/listing-tagline-too-long.json");

function runCommand(...args: string[]) {
  const result = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "sdk/src/cli.ts"), ...args], { cwd: ROOT, encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("subbridge-connector command as a process", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "subbridge-cli-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("exits 0, 1 and 2 as a process", function () {
    this.timeout(60_000);
    const valid = runCommand("validate", TELEGRAM);
    assert.equal(valid.status, 0, valid.stderr);
    assert.match(
      valid.stdout,
      new RegExp(`^✔ .*connector\\.json is valid and loads as the server loads it \\(key telegram, version ${VERSION}\\)\n$`),
    );
    const invalid = runCommand("validate", TAGLINE_TOO_LONG, "--json");
    assert.equal(invalid.status, 1, invalid.stderr);
    assert.equal(JSON.parse(invalid.stdout).valid, false);
    const missing = runCommand("validate", join(dir, "nothing.json"));
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /cannot read .*nothing\.json: no such file/);
  });
});
