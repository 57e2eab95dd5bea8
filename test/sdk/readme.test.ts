// sdk/README.md is what a third party reads on the registry: the commands it shows must work
// where they are shown, and what it says about the client must match the code.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as sdk from "../../sdk/src/index.ts";
import { DEFAULT_TIMEOUT_MS } from "../../sdk/src/retrying-fetch.ts";
import { snippetErrors } from "./typecheck-snippets.ts";

const readme = readFileSync(new URL("../../sdk/README.md", import.meta.url), "utf8");

/** The ```ts blocks of the README section under `heading` (up to the next heading of its level or higher). */
function tsBlocksUnder(heading: string): string[] {
  const start = readme.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `no ${heading} in the README`);
  const level = heading.split(" ")[0]!;
  const rest = readme.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`^#{1,${level.length}} `, "m"));
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

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

  it("compiles the typed-events and de-duplication examples against the SDK's sources", function () {
    this.timeout(60_000);
    const snippets = [...tsBlocksUnder("### Typed events"), ...tsBlocksUnder("### Duplicates, order and time-outs")];
    assert.equal(snippets.length, 3, "the typed-events example, the PostgreSQL recipe and the Redis claim");
    assert.deepEqual(snippetErrors(snippets), []);
    // The control: the check does object to a snippet that misreads an event.
    const misread = snippets[0]!.replace("event.data.subscription.member_id, event.data.subscription.ends_at", "event.data.member.id, null");
    assert.notEqual(misread, snippets[0]);
    assert.ok(snippetErrors([misread]).length > 0, "a subscription event's data read as a member event's compiled");
  });

  it("compiles the client, idempotency, timeouts, errors and pagination examples against the SDK's sources", function () {
    this.timeout(60_000);
    const declared = (code: string) =>
      [
        code.includes("import { createClient }") ? "" : `import { createClient } from "@subbridge/sdk";`,
        /const sb = /.test(code) ? "" : "declare const sb: ReturnType<typeof createClient>;",
        ...["project", "planId", "date", "baseUrl", "token"]
          .filter((name) => !new RegExp(`const ${name} = `).test(code))
          .map((name) => `declare const ${name}: string;`),
        "declare function onShutdown(stop: () => void): void;",
        code,
      ].join("\n");
    const sections = ["## The client", "## Idempotency and retries", "## Timeouts and cancellation", "## Errors", "## Pagination"];
    const programs = sections.map((heading) => declared(tsBlocksUnder(heading).join("\n")));
    assert.ok(programs[0]!.includes("sb.plans.create(") && programs[0]!.includes("sb.raw.GET("), "the client section shows both clients");
    assert.deepEqual(snippetErrors(programs), []);
  });

  it("documents every webhook export and the receiver rules (claim, 24 hours, 2xx within the time-out, latest per resource)", () => {
    for (const name of [
      "WebhookEvent",
      "WebhookEventType",
      "WebhookEventOf<T>",
      "WEBHOOK_EVENT_TYPES",
      "isWebhookEventType(name)",
      "UnknownWebhookEvent",
      "WebhookEnvelope<Data>",
    ]) {
      assert.match(readme, new RegExp(`^\\| \`${name.replace(/[()<>]/g, "\\$&")}\` +\\|`, "m"), `${name} is missing from the typed-events table`);
    }
    assert.equal(typeof sdk.createMemoryDeduplicator, "function");
    for (const phrase of [
      "ON CONFLICT (id) DO NOTHING",
      "SET <id> 1 NX EX 86400",
      "at least 24 hours",
      "10-second request time-out",
      "latest event per resource",
      "createMemoryDeduplicator",
    ]) {
      assert.ok(readme.includes(phrase), `the README does not say ${phrase}`);
    }
  });
});
