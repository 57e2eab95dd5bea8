// Mocha's settings. Mocha re-runs node with node-option in a child process that inherits this
// environment, so the test CA is added here, before that process starts: the local HTTPS webhook
// receivers use certificates it signed (test/fixtures/tls, scripts/make-test-tls.sh), and Node reads
// NODE_EXTRA_CA_CERTS only at start-up. A CA file the caller already set is kept, in one bundle.
const { existsSync, readFileSync, renameSync, writeFileSync } = require("node:fs");
const { createHash } = require("node:crypto");
const { join } = require("node:path");
const { tmpdir } = require("node:os");

const testCa = join(__dirname, "test/fixtures/tls/ca.pem");
const callers = process.env.NODE_EXTRA_CA_CERTS;
if (!callers) process.env.NODE_EXTRA_CA_CERTS = testCa;
else if (callers !== testCa && !callers.includes("subbridge-test-ca-")) {
  let theirs = "";
  try {
    theirs = readFileSync(callers, "utf8");
  } catch {
    // An unreadable file Node would only warn about: the test CA alone.
  }
  const pem = `${theirs}\n${readFileSync(testCa, "utf8")}`;
  const bundle = join(tmpdir(), `subbridge-test-ca-${createHash("sha256").update(pem).digest("hex").slice(0, 16)}.pem`);
  // Written whole under another name, then renamed: two runs starting together (CI runs the
  // embedded and the PostgreSQL legs side by side) never let a child read a half-written bundle.
  if (!existsSync(bundle) || readFileSync(bundle, "utf8") !== pem) {
    writeFileSync(`${bundle}.${process.pid}`, pem);
    renameSync(`${bundle}.${process.pid}`, bundle);
  }
  process.env.NODE_EXTRA_CA_CERTS = bundle;
}

// The run's id, shared by mocha's re-spawned process and its parallel workers: every database
// and Redis key a test process makes starts with it, so the run's teardown finds them all.
process.env.TEST_RUN_ID ??= require("node:crypto").randomBytes(4).toString("hex");

// Settings every run shares; the tiers (test/mocharc.fast.cjs, test/mocharc.slow.cjs) add which
// files and how many processes. `npx mocha <file>` runs one file with these settings.
module.exports = {
  // conditions: @subbridge/sdk (a workspace) is imported from its sources (sdk/package.json).
  "node-option": ["import=tsx", "conditions=subbridge-source", "no-experimental-require-module"],
  require: ["test/helpers/hooks.mjs"],
  timeout: 30000,
  slow: 1000,
  extension: ["ts"],
};
