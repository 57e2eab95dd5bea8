// The provider registry: a Stripe method is served with the connected account sealed in its
// credentials (only on its own project, only when this deployment has Stripe); a Stars method with
// the project's active Telegram installation; anything else, or a method missing what it needs,
// is unavailable (null).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createStripeClient } from "../../../src/modules/payments/stripe/client.ts";
import type { PaymentMethodRow } from "../../../src/modules/payment-methods/tables.ts";
import { providerRegistry, sealStripeCredentials } from "../../../src/modules/payments/providers.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createTestCreator } from "../../helpers/fixtures.ts";
import { seedInstallation, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";

const method = (provider: string, projectId: string, teamId: string, credentials: string | null = null): PaymentMethodRow => ({
  id: randomUUID(),
  team_id: teamId,
  project_id: projectId,
  provider,
  name: provider,
  mode: "test",
  enabled: true,
  currencies: ["USD"],
  billing_cycles: ["month"],
  credentials,
  created_at: new Date(),
  updated_at: new Date(),
});

describe("payments: the provider registry", () => {
  const client = createStripeClient({ secretKey: "sk_test_registry000000", host: "127.0.0.1", port: 9, protocol: "http" });

  async function registry(stripe = true) {
    const { db } = await testDatabase();
    return providerRegistry({ db, stripe: stripe ? client : null, connectors: { platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY } });
  }

  it("serves a Stripe method with its connected account, and none without Stripe or an account", async () => {
    const projectId = randomUUID();
    const row = method("stripe", projectId, randomUUID(), sealStripeCredentials(TEST_APP_KEY, projectId, { account: "acct_123" }));
    const served = await (await registry()).providerFor(row);
    assert.equal(served?.provider.name, "stripe");
    assert.deepEqual(served?.method, { paymentMethodId: row.id, account: "acct_123", mode: "test" });
    assert.equal(await (await registry(false)).providerFor(row), null);
    assert.equal(await (await registry()).providerFor({ ...row, credentials: null }), null);
  });

  it("opens a Stripe method's credentials only on the project they were sealed for", async () => {
    const sealed = sealStripeCredentials(TEST_APP_KEY, randomUUID(), { account: "acct_123" });
    await assert.rejects((await registry()).providerFor(method("stripe", randomUUID(), randomUUID(), sealed)));
  });

  it("serves a Stars method with the project's Telegram installation, and none without one", async () => {
    const creator = await createTestCreator({ projects: 2 });
    const [installed, bare] = creator.projectIds as [string, string];
    const installationId = await seedInstallation(creator.teamId, installed);
    const served = await (await registry()).providerFor(method("telegram_stars", installed, creator.teamId));
    assert.equal(served?.provider.name, "telegram_stars");
    assert.equal(served?.method.account, installationId);
    assert.equal(await (await registry()).providerFor(method("telegram_stars", bare, creator.teamId)), null);
  });

  it("serves no provider it does not know", async () => {
    assert.equal(await (await registry()).providerFor(method("paypal", randomUUID(), randomUUID())), null);
  });
});
