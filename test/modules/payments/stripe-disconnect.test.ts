// A creator who disconnects SubBridge from their Stripe account whose event never arrives: the
// reconcile job, refused by Stripe (`account_invalid`), turns the account's method off and tells the
// creators once, instead of failing on it every run. (The event itself, and a member's checkout
// refused the same way: test/auth/pages/payments.test.ts and test/portal/checkout.test.ts.)
import assert from "node:assert/strict";
import pino from "pino";
import { reconcilePayments } from "../../../src/modules/payments/reconcile.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { testPlatformEndpoints } from "../../helpers/platforms.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";
import { useApiWithStripeTwin } from "../../helpers/suite.ts";
import { newProject } from "../connectors/support.ts";
import { connectStripeMethod } from "./methods.ts";

describe("payments.reconcile and a Stripe account SubBridge may no longer reach", function () {
  this.timeout(60_000);
  const suite = useApiWithStripeTwin();

  it("turns the account's method off and alerts the creators once; the next run reads nothing of it", async () => {
    const projectId = await newProject(suite.creator, "Disconnected");
    const { row, account } = await connectStripeMethod(suite.creator, projectId, { twin: suite.twin, client: suite.stripe.client });
    const { db } = await testDatabase();
    const reconcile = async () =>
      reconcilePayments({
        db,
        now: new Date(),
        logger: pino({ level: "silent" }),
        platformAccess: { platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY },
        stripe: suite.stripe,
      });
    await reconcile();
    assert.equal((await db("payment_methods").where({ id: row.id }).first()).enabled, true, "a reachable account changes nothing");

    await suite.twin.deauthorize(account, { eventLost: true });
    assert.ok((await reconcile()).changed >= 1);
    assert.equal((await db("payment_methods").where({ id: row.id }).first()).enabled, false);
    const alerts = async () =>
      (await db("creator_alerts").where({ user_id: suite.creator.userId, about_project_id: projectId })).map((a: { title: string }) => a.title);
    assert.deepEqual(await alerts(), ["Disconnected: Stripe was disconnected"]);

    const calls = suite.twin.calls.filter((c) => c.account === account).length;
    await reconcile();
    assert.equal(suite.twin.calls.filter((c) => c.account === account).length, calls, "a method turned off is not read again");
    assert.deepEqual(await alerts(), ["Disconnected: Stripe was disconnected"]);
  });
});
