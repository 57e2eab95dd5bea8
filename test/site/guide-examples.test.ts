// The guides' examples run as written (only their `@subbridge/sdk` imports pointed at the SDK's
// sources): the REST first call against the API with a real token, the complete webhook receiver
// against deliveries signed exactly as the delivery worker signs them (SB-Signature and RFC 9421),
// and the signing snippet.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startSites, type RunningSites } from "../helpers/site.ts";
import { snippetErrors } from "../sdk/typecheck-snippets.ts";
import { testDatabase } from "../helpers/backends.ts";
import { createTestCreator } from "../helpers/fixtures.ts";
import { TEST_APP_KEY } from "../helpers/server.ts";
import { activeSigningKey } from "../../src/modules/webhooks/signing-keys.ts";
import { deliveryHeaders } from "../../src/modules/webhooks/signature.ts";
import { messageSignatureHeaders } from "../../src/modules/webhooks/message-signature.ts";

const sdk = (file: string) => JSON.stringify(fileURLToPath(new URL(`../../sdk/src/${file}`, import.meta.url)));
const guide = (name: string) => readFileSync(new URL(`../../src/apps/docs/pages/guides/${name}.md`, import.meta.url), "utf8");

/** The n-th ts block after a heading of a guide, its SDK imports pointed at the sources. */
function example(name: string, heading: string, n = 0): string {
  const text = guide(name);
  const start = text.indexOf(`${heading}\n`);
  assert.ok(start >= 0, `${name} has no heading ${heading}`);
  const blocks = [...text.slice(start).matchAll(/```ts\n([\s\S]*?)```/g)];
  assert.ok(blocks[n], `${name}: no ts block ${n} after ${heading}`);
  return blocks[n]![1]!.replace(`"@subbridge/sdk/webhooks"`, sdk("webhooks.ts")).replace(`"@subbridge/sdk"`, sdk("index.ts"));
}

/** What console.log prints from now until the returned restore() (the examples report by printing). */
function capturePrinted(): { printed: string[]; restore(): void } {
  const printed: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => void printed.push(args.join(" "));
  return { printed, restore: () => void (console.log = log) };
}

/** Runs an example as an ES module (.mts: top-level await, as a reader's tsx run has it); its exports. */
async function run(folder: string, name: string, code: string): Promise<Record<string, unknown>> {
  const file = join(folder, `${name}.mts`);
  writeFileSync(file, code);
  return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
}

describe("guide examples, run as written", function () {
  this.timeout(60_000);
  let sites: RunningSites;
  let folder: string;
  const env: Record<string, string> = {};
  const setEnv = (values: Record<string, string>) => {
    Object.assign(env, values);
    Object.assign(process.env, values);
  };
  before(async () => {
    sites = await startSites();
    folder = mkdtempSync(join(tmpdir(), "subbridge-guides-"));
  });
  after(async () => {
    for (const name of Object.keys(env)) delete process.env[name];
    await sites?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("REST API guide: the first call reads the team, pages through projects and creates one", async () => {
    const creator = await createTestCreator({ label: "guide-rest", projects: 2 });
    setEnv({ SUBBRIDGE_BASE_URL: `${sites.api.url}/v1`, SUBBRIDGE_TOKEN: creator.token });
    const { printed, restore } = capturePrinted();
    try {
      await run(folder, "first-call", example("rest-api", "## A first call"));
    } finally {
      restore();
    }
    assert.match(printed[0]!, /^team: /);
    for (const id of creator.projectIds)
      assert.ok(
        printed.some((line) => line.includes(`(${id})`)),
        id,
      );
    assert.match(printed.at(-1)!, /^created: [0-9a-f-]{36}$/);
  });

  it("webhooks guide: the complete receiver accepts a real delivery once, a repeat as a duplicate, refuses a tampered one", async () => {
    const secret = "whsec_guide_example_secret";
    const registered = "https://hooks.example.com/subbridge";
    setEnv({ SUBBRIDGE_WEBHOOK_SECRET: secret, ENDPOINT_URL: registered, SUBBRIDGE_SITE_URL: sites.site.url, PORT: "0" });
    const { printed, restore } = capturePrinted();
    const receiver = (await run(folder, "receiver", example("webhooks", "## A complete receiver"))).server as Server;
    try {
      if (!receiver.listening) await new Promise((resolve) => receiver.once("listening", resolve));
      const { db } = await testDatabase();
      const key = await activeSigningKey(db, TEST_APP_KEY, new Date());
      const event = {
        id: "evt_01JD3Z8Q6W2X4Y5Z6A7B8C9D0E",
        type: "member.joined",
        created_at: new Date().toISOString(),
        api_version: "2026-11-23",
        project_id: null,
        data: {},
      };
      const body = JSON.stringify(event);
      const at = new Date();
      const base = deliveryHeaders({ secret, body, event, release: "3.0.0", at });
      const headers = { ...base, ...messageSignatureHeaders(key, { method: "POST", url: new URL(registered), body, headers: base, at }) };
      const local = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/subbridge`;

      const first = await fetch(local, { method: "POST", headers, body });
      assert.equal(first.status, 200);
      assert.equal(await first.text(), "ok");
      assert.ok(printed.includes(`received member.joined ${event.id}`));
      const again = await fetch(local, { method: "POST", headers, body });
      assert.equal(await again.text(), "duplicate");
      const tampered = await fetch(local, { method: "POST", headers, body: body.replace("{}", '{"x":1}') });
      assert.equal(tampered.status, 400);
      assert.equal(await tampered.text(), "signature_mismatch");
      const wrongSecret = deliveryHeaders({ secret: "whsec_other", body, event, release: "3.0.0", at });
      const forged = await fetch(local, { method: "POST", headers: { ...headers, "sb-signature": wrongSecret["sb-signature"]! }, body });
      assert.equal(await forged.text(), "signature_mismatch");
      const { signature: _dropped, ...unsigned } = headers;
      const noMessageSignature = await fetch(local, { method: "POST", headers: unsigned, body });
      assert.equal(await noMessageSignature.text(), "missing_signature");
    } finally {
      restore();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it("webhooks guide: the signing snippet verifies what it signed", async () => {
    const { printed, restore } = capturePrinted();
    try {
      await run(folder, "sign", example("webhooks", "## A complete receiver", 1));
    } finally {
      restore();
    }
    assert.deepEqual(printed, ["member.joined"]);
  });
});

describe("guide examples, typechecked against the SDK", () => {
  it("every ts block of the guides compiles in strict mode (a fragment gets the client it names)", () => {
    const fragmentClient = `import { createClient } from "@subbridge/sdk";\ndeclare const sb: ReturnType<typeof createClient>;\n`;
    const snippets = ["rest-api", "mcp", "webhooks"].flatMap((name) =>
      [...guide(name).matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => {
        const code = m[1]!;
        const body = /\bsb\./.test(code) && !code.includes("createClient(") ? fragmentClient + code : code;
        // A module (top-level await, as a reader runs it with tsx) even when it imports nothing.
        return `${body}\nexport {};\n`;
      }),
    );
    assert.ok(snippets.length >= 5);
    assert.deepEqual(snippetErrors(snippets), []);
  });
});
