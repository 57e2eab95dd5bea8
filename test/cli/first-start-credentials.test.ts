// The first start's demo password and token: shown on a person's terminal, never written to a
// stdout that is a log stream (then they go to a file under DATA_DIR only this user can read).
import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEMO_CREDENTIALS_FILE, demoAccountLines } from "../../src/first-start.ts";
import type { DemoAccount } from "../../src/operator.ts";
import { tempDir } from "../helpers/processes.ts";

const demo: DemoAccount = {
  email: "demo@subbridge.local",
  password: "pw-3f9a1c2b7d6e5f40",
  teamId: "team-1",
  projectId: "project-1",
  token: { id: "1", token: "sbt_live_1_secretsecretsecret", abilities: [] },
};

describe("the first start's demo credentials", () => {
  it("prints the password and token on a terminal", () => {
    const dataDir = tempDir("first-start-tty");
    const text = demoAccountLines(demo, { apiUrl: "http://localhost:4000", tty: true, dataDir }).join("\n");
    assert.match(text, /password pw-3f9a1c2b7d6e5f40/);
    assert.match(text, /sbt_live_1_secretsecretsecret/);
    assert.throws(() => statSync(join(dataDir, DEMO_CREDENTIALS_FILE)), /ENOENT/, "no file when a person reads the terminal");
  });

  it("writes them to a file under DATA_DIR (mode 0600) when stdout is not a terminal, and prints its path instead", () => {
    const dataDir = tempDir("first-start-log");
    const path = join(dataDir, DEMO_CREDENTIALS_FILE);
    // One left by an earlier database with a wider mode is narrowed as it is overwritten.
    writeFileSync(path, "old", { mode: 0o644 });
    const text = demoAccountLines(demo, { apiUrl: "http://localhost:4000", tty: false, dataDir }).join("\n");
    assert.ok(!text.includes(demo.password) && !text.includes(demo.token.token), text);
    assert.ok(text.includes(path), text);
    assert.match(text, /creator\s+demo@subbridge\.local/);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const written = readFileSync(path, "utf8");
    assert.match(written, /password pw-3f9a1c2b7d6e5f40/);
    assert.match(written, /curl -H "Authorization: Bearer sbt_live_1_secretsecretsecret" http:\/\/localhost:4000\/v1\/teams\/current/);
  });
});
