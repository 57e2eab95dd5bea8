// subbridge-connector validate <path> [--json]: readable output, a machine-readable mode, and exit
// status 0 valid / 1 invalid / 2 usage or I/O error, run in-process (cli.slow.test.ts runs the bin
// as a real process for the exit statuses).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../sdk/src/connector/cli.ts";
import { minimalManifest, ROOT } from "./manifest-files.ts";

const TELEGRAM = join(ROOT, "connectors/telegram/connector.json");
const TAGLINE_TOO_LONG = join(ROOT, "test/fixtures/manifests/invalid/listing-tagline-too-long.json");

function runInProcess(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const status = runCli(args, { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), readFile: (path) => readFileSync(path, "utf8") });
  return { status, stdout: out.join("\n"), stderr: err.join("\n") };
}

describe("subbridge-connector command", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "subbridge-cli-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("prints one line per problem with its pointer, then the count", () => {
    const manifest = minimalManifest();
    manifest.listing.tagline = "t".repeat(93);
    manifest.key = "Bad Key";
    delete manifest.vendor;
    const path = join(dir, "draft.json");
    writeFileSync(path, JSON.stringify(manifest, null, 2));
    const { status, stdout } = runInProcess("validate", path);
    assert.equal(status, 1);
    const lines = stdout.split("\n");
    assert.deepEqual(lines.slice(0, 3), [
      `✖ ${path}: /vendor: the manifest is missing required property vendor`,
      `✖ ${path}: /key: key must start with a lowercase letter and contain only a-z, 0-9, _ and - (it is "Bad Key")`,
      `✖ ${path}: /listing/tagline: listing.tagline must be at most 80 characters (it has 93)`,
    ]);
    assert.equal(lines.at(-1), `${path} is not a valid connector manifest: 3 problems.`);
  });

  it("prints {valid, file, errors} with --json", () => {
    const invalid = runInProcess("validate", TAGLINE_TOO_LONG, "--json");
    assert.equal(invalid.status, 1);
    assert.deepEqual(JSON.parse(invalid.stdout), {
      valid: false,
      file: TAGLINE_TOO_LONG,
      errors: [
        {
          file: TAGLINE_TOO_LONG,
          pointer: "/listing/tagline",
          message: "listing.tagline must be at most 80 characters (it has 81)",
          keyword: "maxLength",
          params: { limit: 80 },
        },
      ],
    });
    const valid = runInProcess("--json", "validate", TELEGRAM);
    assert.equal(valid.status, 0);
    assert.deepEqual(JSON.parse(valid.stdout), { valid: true, file: TELEGRAM, errors: [] });
    const missing = runInProcess("validate", join(dir, "absent.json"), "--json");
    assert.equal(missing.status, 2);
    assert.equal(JSON.parse(missing.stdout).errors[0].keyword, "file");
  });

  it("reports a file that is not JSON with the line and column, as invalid", () => {
    const path = join(dir, "broken.json");
    writeFileSync(path, '{\n  "key": "chatter",\n  "name": "Chatter"\n  "version": "1.0.0"\n}\n');
    const { status, stdout } = runInProcess("validate", path);
    assert.equal(status, 1);
    assert.equal(stdout.split("\n")[0]!.startsWith(`✖ ${path}: the file is not valid JSON: `), true, stdout);
    assert.match(stdout, /the file is not valid JSON: .+ \(line 4, column 3\)$/m);
  });

  it("shows help with --help (exit 0) and on a usage mistake (exit 2)", () => {
    const help = runInProcess("--help");
    assert.equal(help.status, 0);
    assert.match(
      help.stdout,
      /^Usage: subbridge-connector validate <path\/to\/connector\.json> \[--json\]\n {7}subbridge-connector validate <package folder>/,
    );
    assert.match(help.stdout, /https:\/\/subbridge\.dev\/schemas\/connector\.schema\.json/);
    for (const args of [[], ["validate"], ["check", TELEGRAM], ["validate", TELEGRAM, "extra.json"], ["validate", TELEGRAM, "--yaml"]]) {
      const usage = runInProcess(...args);
      assert.equal(usage.status, 2, args.join(" "));
      assert.match(usage.stderr, /Usage: subbridge-connector/);
    }
  });
});
