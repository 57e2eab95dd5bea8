// The simulators' pages and APIs answer a loopback Host only (issue 43, section 2, "Simulator pages
// check Host"): a page of another site whose name was rebound to 127.0.0.1 sends its own name as
// Host, and is refused (421) before anything is read or done, on the mail catcher's page, the
// simulated Telegram's page and functions, the Bot API, and the Stripe twin's API and hosted pages.
// Our own drivers, which call them at 127.0.0.1, and a person at localhost or [::1] are answered.
import assert from "node:assert/strict";
import { request } from "node:http";
import { startFakePlatform, type FakePlatform } from "../../../src/simulators/platforms/fake-platform.ts";
import { startMailCatcher, type MailCatcher } from "../../../src/simulators/mail-catcher.ts";
import { startStripeTwin, type StripeTwin } from "../../../src/simulators/stripe/index.ts";
import { createStripeClient } from "../../../src/modules/payments/stripe/client.ts";
import { loopbackHost } from "../../../src/simulators/loopback.ts";

/** A request to 127.0.0.1 with the Host header a browser would send for `host`. */
function send(url: string, host: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const target = new URL(url);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: init.method ?? "GET",
        headers: { ...init.headers, host },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on("error", reject);
    req.end(init.body);
  });
}

const FOREIGN = ["rebound.example", "rebound.example:4006", "127.0.0.1.nip.example", "app.localhost", "localhost.example", "[::2]"];

describe("simulators answer a loopback Host only", function () {
  this.timeout(30_000);
  let fake: FakePlatform;
  let twin: StripeTwin;
  let catcher: MailCatcher;
  before(async () => {
    [fake, twin, catcher] = await Promise.all([
      startFakePlatform({ acceptAny: true }),
      startStripeTwin(),
      startMailCatcher({ page: { host: "127.0.0.1", port: 0 } }),
    ]);
  });
  after(async () => {
    await Promise.all([fake?.close(), twin?.close(), catcher?.close()]);
  });

  it("takes localhost, 127.0.0.0/8 and [::1] with any port, and no other name", () => {
    for (const host of ["localhost", "localhost:4006", "LOCALHOST:1", "127.0.0.1:80", "127.1.2.3", "[::1]:4006", "[::1]"])
      assert.equal(loopbackHost(host), true, host);
    for (const host of [...FOREIGN, "user@127.0.0.1", "127.0.0.1:80:80", "", undefined]) assert.equal(loopbackHost(host), false, String(host));
  });

  it("refuses a foreign Host on the mail catcher's page, and answers loopback names", async () => {
    for (const host of FOREIGN) {
      const res = await send(catcher.pageUrl!, host);
      assert.equal(res.status, 421, host);
      assert.doesNotMatch(res.body, /Mail caught/);
    }
    const port = new URL(catcher.pageUrl!).port;
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`])
      assert.match((await send(catcher.pageUrl!, host)).body, /Mail caught on this start/, host);
  });

  it("refuses a foreign Host on the simulated Telegram's page, its forms and the Bot API; the drivers' calls are answered", async () => {
    const token = `123456789:${"z".repeat(35)}`;
    const port = new URL(fake.url).port;
    assert.equal((await send(`${fake.url}/bot${token}/setWebhook?url=http://127.0.0.1:9/hook`, `127.0.0.1:${port}`)).status, 200);
    const calls = fake.calls.length;
    for (const host of FOREIGN) {
      const page = await send(`${fake.url}/_sim/telegram`, host);
      assert.equal(page.status, 421, host);
      assert.doesNotMatch(page.body, /Simulated Telegram/);
      const form = await send(`${fake.url}/_sim/telegram/send`, host, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "bot=123456789&user_id=42&first_name=Ada&text=hi",
      });
      assert.equal(form.status, 421, host);
      assert.equal((await send(`${fake.url}/bot${token}/getMe`, host)).status, 421, host);
    }
    assert.equal(fake.calls.length, calls, "nothing was recorded or done");
    assert.match((await send(`${fake.url}/_sim/telegram`, `localhost:${port}`)).body, /@sb_demo_123456789_bot/);
  });

  it("refuses a foreign Host on the Stripe twin's API and its hosted pages; its client at 127.0.0.1 is answered", async () => {
    const client = createStripeClient({ secretKey: twin.secretKey, ...twin.clientOptions });
    const product = await client.products.create({ name: "Night Owl" });
    const price = await client.prices.create({ product: product.id, unit_amount: 900, currency: "usd" });
    const session = await client.checkout.sessions.create({ mode: "payment", line_items: [{ price: price.id, quantity: 1 }] });
    const calls = twin.calls.length;
    for (const host of FOREIGN) {
      const page = await send(session.url!, host);
      assert.equal(page.status, 421, host);
      assert.doesNotMatch(page.body, /Night Owl/);
      assert.equal((await send(`${twin.url}/v1/account`, host, { headers: { authorization: `Bearer ${twin.secretKey}` } })).status, 421, host);
    }
    assert.equal(twin.calls.length, calls);
    assert.match((await send(session.url!, `localhost:${twin.port}`)).body, /Night Owl/);
  });
});
