// sdk/README.md's "Verifying the RFC 9421 signature" receiver, run as written (only its import
// pointed at the SDK's sources) against the site surface: a delivery signed as the server signs
// them is accepted, a tampered one refused with the reason in the answer.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { testDatabase, testKv } from "../helpers/backends.ts";
import { DOCS_URL, serveOnFreePort, TEST_APP_KEY, testLogger } from "../helpers/server.ts";
import { marketingTestDeps } from "../helpers/site.ts";
import { createSiteApp } from "../../src/apps/site/site-app.ts";
import { activeSigningKey } from "../../src/modules/webhooks/signing-keys.ts";
import { messageSignatureHeaders } from "../../src/modules/webhooks/message-signature.ts";

const SDK_WEBHOOKS = fileURLToPath(new URL("../../sdk/src/webhooks.ts", import.meta.url));
const README = readFileSync(new URL("../../sdk/README.md", import.meta.url), "utf8");

/** The first ts block after the heading. */
function example(): string {
  const section = README.slice(README.indexOf("### Verifying the RFC 9421 signature"));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, "the README has no receiver example");
  return block;
}

describe("sdk README: the RFC 9421 receiver example", () => {
  let site: { url: string; close(): Promise<void> };
  let folder: string;
  let receiver: Server;
  const registered = "https://hooks.example.com/subbridge";
  before(async () => {
    const { db } = await testDatabase();
    const kv = await testKv();
    site = await serveOnFreePort((url) =>
      createSiteApp({
        db,
        kv,
        appKey: TEST_APP_KEY,
        now: () => new Date(),
        release: "test",
        logger: testLogger,
        siteUrl: url,
        docsUrl: DOCS_URL,
        ...marketingTestDeps(),
      }),
    );
    folder = mkdtempSync(join(tmpdir(), "subbridge-receiver-"));
    const file = join(folder, "receiver.ts");
    writeFileSync(file, example().replace(`"@subbridge/sdk/webhooks"`, JSON.stringify(SDK_WEBHOOKS)));
    Object.assign(process.env, { SUBBRIDGE_SITE_URL: site.url, ENDPOINT_URL: registered, PORT: "0" });
    receiver = ((await import(pathToFileURL(file).href)) as { server: Server }).server;
    if (!receiver.listening) await new Promise((resolve) => receiver.once("listening", resolve));
  });
  after(async () => {
    await new Promise((resolve) => receiver?.close(resolve));
    await site?.close();
    for (const name of ["SUBBRIDGE_SITE_URL", "ENDPOINT_URL", "PORT"]) delete process.env[name];
    rmSync(folder, { recursive: true, force: true });
  });

  it("accepts a signed delivery and refuses a tampered body", async () => {
    const { db } = await testDatabase();
    const key = await activeSigningKey(db, TEST_APP_KEY, new Date());
    const body = JSON.stringify({ id: "evt_01JD2Q5V6W7X8Y9Z0ABCDEFGHJ", type: "subscription.created", data: {} });
    const base = { "content-type": "application/json", "sb-event-id": "01JD2Q5V6W7X8Y9Z0ABCDEFGHJ", "sb-event-name": "subscription.created" };
    const headers = { ...base, ...messageSignatureHeaders(key, { method: "POST", url: new URL(registered), body, headers: base, at: new Date() }) };
    const local = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/subbridge`;
    const ok = await fetch(local, { method: "POST", headers, body });
    assert.equal(ok.status, 200, await ok.text());
    const tampered = await fetch(local, { method: "POST", headers, body: body.replace("{}", '{"x":1}') });
    assert.equal(tampered.status, 400);
    assert.equal(await tampered.text(), "content_digest_mismatch");
    const unsigned = await fetch(local, { method: "POST", headers: base, body });
    assert.equal(await unsigned.text(), "missing_signature");
  });
});
