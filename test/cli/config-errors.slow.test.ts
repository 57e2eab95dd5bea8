// A bad configuration value through the start command itself: one line naming the variable and
// what it accepts on stderr, no stack trace, a non-zero exit (the fast tier checks every variable
// on the loader: test/cli/config-errors.test.ts).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, runNpm, tempDir } from "../helpers/processes.ts";

describe("npm start with a bad configuration value", function () {
  this.timeout(180_000);

  for (const [name, value, message] of [
    ["LOG_LEVEL", "loud", /^configuration error: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"$/],
    ["HOST", "not_a_host", /^configuration error: HOST must be an IP address of this machine .* or a hostname, got "not_a_host"$/],
  ] as const) {
    it(`refuses ${name}=${value} in one line, without a stack trace`, async () => {
      const result = await runNpm("start", [], { [name]: value, DATA_DIR: tempDir("bad-config") });
      assert.notEqual(result.code, 0);
      assert.match(result.stderr.trim(), message);
      assert.doesNotMatch(result.stderr, /\n\s+at /);
    });
  }

  it("names HOST when its name does not resolve (the listen fails, after the backends open)", async () => {
    const env: Record<string, string> = { HOST: "no-such-host.invalid", DATA_DIR: tempDir("bad-host"), LOG_LEVEL: "warn" };
    for (const surface of ["API", "MCP", "AUTH", "SITE", "DOCS", "PORTAL"]) env[`${surface}_PORT`] = String(await freePort());
    const result = await runNpm("start", [], env);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr.trim(), /^configuration error: cannot listen on no-such-host\.invalid \(E\w+\): set HOST \(or METRICS_HOST\)/m);
    assert.doesNotMatch(result.stderr, /\n\s+at /);
  });

  it("ends the start in one line when the embedded database cannot be opened behind its listeners", async () => {
    // PGlite opens behind the claimed socket while the ports answer (src/embedded/database.ts): its
    // failure must still end the process, not leave it starting forever.
    const dataDir = tempDir("bad-pgdata");
    writeFileSync(join(dataDir, "pgdata"), "not a folder");
    const env: Record<string, string> = { DATA_DIR: dataDir, DATABASE_URL: "", LOG_LEVEL: "warn" };
    for (const surface of ["API", "MCP", "AUTH", "SITE", "DOCS", "PORTAL", "DASHBOARD"]) env[`${surface}_PORT`] = String(await freePort());
    const result = await runNpm("start", [], env);
    assert.notEqual(result.code, 0);
    assert.match(
      result.stderr.trim(),
      new RegExp(`^could not initialise the embedded database in ${join(dataDir, "pgdata").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: `, "m"),
    );
    assert.doesNotMatch(result.stderr, /\n\s+at /);
  });
});
