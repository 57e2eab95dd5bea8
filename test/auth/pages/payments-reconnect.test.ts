// A Stripe method whose account Stripe no longer accepts (issue 43, item 4): "Turn on" asks Stripe
// first (accounts.retrieve with the platform's key) and refuses in words, leaving the method off
// and ending the account's connection; the Payments page then offers "Connect Stripe again" (a new
// connection, a new account, a new method) instead of hiding Connect Stripe behind a dead method.
// An account Stripe still accepts is turned on; a Stripe that cannot be reached is a 503.
import assert from "node:assert/strict";
import { startAuth } from "../../helpers/auth.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createTestCreator } from "../../helpers/fixtures.ts";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { startApi } from "../../helpers/server.ts";
import { createStripeClient } from "../../../src/modules/payments/stripe/client.ts";
import { startStripeTwin, type StripeTwin } from "../../../src/simulators/stripe/index.ts";
import type { PaymentMethodRow } from "../../../src/modules/payment-methods/tables.ts";
import { paymentsPages, useStripePages, type StripePages } from "./payments-support.ts";

describe("auth pages: payments, a Stripe account Stripe no longer accepts", function () {
  this.timeout(60_000);
  const hosts = useStripePages();
  let twin: StripeTwin;
  let auth: StripePages["auth"];
  before(() => ({ twin, auth } = hosts));
  const { signedIn, connect, accountOf } = paymentsPages(() => ({ twin, authUrl: auth.url }));

  const stripeMethods = async (projectId: string) =>
    (await (
      await testDatabase()
    )
      .db("payment_methods")
      .where({ project_id: projectId, provider: "stripe" })
      .orderBy("created_at")) as PaymentMethodRow[];

  /** A project connected to Stripe through the page, its account's onboarding done (account.updated makes the method). */
  async function connected(label: string) {
    const creator = await createTestCreator({ label });
    const projectId = creator.projectIds[0]!;
    const browser = await signedIn(creator);
    const account = accountOf(await connect(browser, projectId));
    await twin.completeOnboarding(account);
    const [method] = await stripeMethods(projectId);
    assert.equal(method?.enabled, true);
    return { creator, projectId, browser, account, method: method! };
  }

  it("refuses Turn on in words when Stripe refuses the account, then offers Connect Stripe again, which makes a new method", async () => {
    const { projectId, browser, account, method } = await connected("pay-turn-on-refused");
    const base = `/payments/projects/${projectId}/methods/${method.id}`;
    // The creator turned the method off; then disconnected SubBridge in Stripe, and the event was lost.
    assert.equal((await browser.post(`${base}/disable`, {}, "/payments")).headers.get("location"), "/payments?done=disabled");
    await twin.deauthorize(account, { eventLost: true });
    assert.match(await (await browser.get("/payments")).text(), /aria-label="Turn on Stripe"/, "nothing has told SubBridge yet");

    const retrieved = twin.calls.length;
    const refused = await browser.post(`${base}/enable`, {}, "/payments");
    assert.equal(refused.status, 409);
    assert.match(
      await refused.text(),
      new RegExp(`Stripe no longer accepts the account ${account} [^<]*so the method stays off\\. Connect Stripe again`),
    );
    assert.deepEqual(
      twin.calls.slice(retrieved).map((c) => [c.method, c.path, c.account]),
      [["GET", `/v1/accounts/${account}`, null]],
      "Stripe was asked with the platform's key",
    );
    assert.equal((await stripeMethods(projectId))[0]!.enabled, false, "the dead account is not re-enabled");
    const { db } = await testDatabase();
    assert.equal(await db("payment_connections").where({ project_id: projectId }).first(), undefined, "its connection ended");

    const page = await (await browser.get("/payments")).text();
    assert.match(page, /Stripe no longer accepts this method's Stripe account, so it cannot be turned on\./);
    assert.doesNotMatch(page, /aria-label="Turn on Stripe"/);
    assert.match(page, /<button type="submit">Connect Stripe again<\/button>/);

    const fresh = accountOf(await connect(browser, projectId));
    assert.notEqual(fresh, account, "a new connection, on a new account");
    await twin.completeOnboarding(fresh);
    const methods = await stripeMethods(projectId);
    assert.deepEqual(
      methods.map((m) => [m.id === method.id, m.enabled]),
      [
        [true, false],
        [false, true],
      ],
    );
    const after = await (await browser.get("/payments")).text();
    assert.doesNotMatch(after, /Connect Stripe/, "connected again");
    assert.match(after, /cannot be turned on/, "the old method still says why it stays off");
  });

  it("offers Connect Stripe again once Stripe's deauthorization turned the method off", async () => {
    const { browser, account } = await connected("pay-deauthorized-again");
    await twin.deauthorize(account);
    const page = await (await browser.get("/payments")).text();
    assert.match(page, /<strong>Stripe<\/strong> <span class="badge">Off<\/span>/);
    assert.match(page, /<button type="submit">Connect Stripe again<\/button>/);
  });

  it("turns on a method whose account Stripe still accepts, and answers 503 when Stripe cannot be reached", async () => {
    const { creator, projectId, browser, method } = await connected("pay-turn-on");
    const base = `/payments/projects/${projectId}/methods/${method.id}`;
    await browser.post(`${base}/disable`, {}, "/payments");
    assert.equal((await browser.post(`${base}/enable`, {}, "/payments")).headers.get("location"), "/payments?done=enabled");
    assert.equal((await stripeMethods(projectId))[0]!.enabled, true);
    await browser.post(`${base}/disable`, {}, "/payments");

    const gone = await startStripeTwin();
    await gone.close();
    const unreachable = await startAuth({
      stripe: { client: createStripeClient({ secretKey: gone.secretKey, ...gone.clientOptions, timeoutMs: 2_000 }), webhookSecret: "whsec_unused" },
    });
    try {
      const elsewhere = await paymentsPages(() => ({ twin, authUrl: unreachable.url })).signedIn(creator);
      const res = await elsewhere.post(`${base}/enable`, {}, "/payments");
      assert.equal(res.status, 503);
      assert.match(await res.text(), /Stripe did not answer as expected/);
      assert.equal((await stripeMethods(projectId))[0]!.enabled, false);
    } finally {
      await unreachable.close();
    }
  });

  it("over the API too: update_payment_method turning a Stripe method on asks Stripe first (422 with its reason), and turns on one it accepts", async () => {
    const { creator, projectId, browser, account, method } = await connected("pay-turn-on-api");
    const other = await connected("pay-turn-on-api-ok");
    for (const c of [{ browser, projectId, method }, other])
      await c.browser.post(`/payments/projects/${c.projectId}/methods/${c.method.id}/disable`, {}, "/payments");
    await twin.deauthorize(account, { eventLost: true });
    const api = await startApi({ stripeTwin: twin });
    try {
      const path = (p: string, m: string) => `/v1/projects/${p}/payment-methods/${m}`;
      const refused = await new ApiClient(api.url, creator.token).request("PATCH", path(projectId, method.id), { body: { enabled: true } });
      const error = expectError(refused, 422, "VALIDATION_FAILED");
      assert.match(error.message, new RegExp(`Stripe no longer accepts the account ${account}`));
      assert.equal((await stripeMethods(projectId))[0]!.enabled, false);
      const accepted = await new ApiClient(api.url, other.creator.token).request("PATCH", path(other.projectId, other.method.id), {
        body: { enabled: true },
      });
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
      assert.equal(accepted.body.data.enabled, true);
    } finally {
      await api.close();
    }
  });
});
