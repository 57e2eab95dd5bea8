// sdk/README.md is what a third party reads on the registry: the commands it shows must work
// where they are shown, and what it says about the client must match the code.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as sdk from "../../sdk/src/index.ts";
import { DEFAULT_TIMEOUT_MS } from "../../sdk/src/retrying-fetch.ts";

const readme = readFileSync(new URL("../../sdk/README.md", import.meta.url), "utf8");

describe("sdk README", () => {
  it("shows first the validate command that works in any folder (npx -p names the package), the short form for projects that have it", () => {
    const anywhere = "npx -p @subbridge/sdk subbridge-connector validate path/to/connector.json";
    const short = /npx subbridge-connector /g;
    assert.ok(readme.includes(anywhere), `the README does not show ${anywhere}`);
    const installedNote = readme.indexOf("In a project that has `@subbridge/sdk` installed");
    assert.ok(installedNote > readme.indexOf(anywhere), "the short form is introduced after the command that works anywhere");
    for (const match of readme.matchAll(short)) {
      assert.ok(match.index > installedNote, `npx subbridge-connector (which needs the SDK installed) is shown before saying so, at ${match.index}`);
    }
  });

  it("lists every error class the package exports", () => {
    const classes = Object.entries(sdk)
      .filter(([, value]) => typeof value === "function" && value.prototype instanceof sdk.SubBridgeError)
      .map(([name]) => name);
    assert.ok(classes.includes("TimeoutError") && classes.includes("AbortedError"));
    for (const name of classes) assert.match(readme, new RegExp(`^\\| \`${name}\` +\\|`, "m"), `${name} is missing from the class table`);
  });

  it("documents timeoutMs with its default and baseUrl with or without /v1", () => {
    const row = readme.split("\n").find((line) => line.startsWith("| `timeoutMs`"));
    assert.ok(row, "no timeoutMs row in the options table");
    assert.ok(row.includes(`\`${DEFAULT_TIMEOUT_MS}\``), row);
    const baseUrlRow = readme.split("\n").find((line) => line.startsWith("| `baseUrl`"));
    assert.match(baseUrlRow ?? "", /with or without a trailing `\/v1`/);
  });
});
