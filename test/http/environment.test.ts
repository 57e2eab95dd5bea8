// The sandbox environment (issue 33 item 6; description, tokens: "a token for another environment
// (prefix sbt_test_) is refused on production"): SUBBRIDGE_ENVIRONMENT is test by default on an
// embedded start (it runs simulated providers) and live on PostgreSQL; a test deployment mints
// sbt_test_ tokens (REST create_token) and OAuth tokens sbo_test_/sbr_test_; each environment refuses
// the other's tokens with 401 AUTHENTICATION_REQUIRED on REST and MCP alike.
import assert from "node:assert/strict";
import { loadConfig } from "../../src/config.ts";
import { createDomainContext, type Actor } from "../../src/db/tenant.ts";
import { fromOtherEnvironment } from "../../src/modules/tokens/environment.ts";
import { mintToken, parseBearer } from "../../src/modules/tokens/tokens.ts";
import { testDatabase } from "../helpers/backends.ts";
import { ApiClient, expectError } from "../helpers/http.ts";
import { rawRpc, startMcp, type RunningMcp } from "../helpers/mcp.ts";
import { tempDir } from "../helpers/processes.ts";
import { startApi, type RunningApi } from "../helpers/server.ts";
import { useApiWithCreator } from "../helpers/suite.ts";

describe("environments: live and test (sandbox) deployments", function () {
  this.timeout(60_000);

  describe("SUBBRIDGE_ENVIRONMENT", () => {
    const base = () => ({ DATA_DIR: tempDir("environment") });

    it("is test on an embedded start (simulated providers) and live on PostgreSQL, unless set", () => {
      assert.equal(loadConfig(base()).environment, "test");
      const pg = loadConfig({ ...base(), DATABASE_URL: "postgres://db.example/subbridge" });
      assert.equal(pg.environment, "live");
      assert.equal(pg.platforms.simulated, false);
      assert.equal(loadConfig({ ...base(), SUBBRIDGE_ENVIRONMENT: "test" }).environment, "test");
    });

    it("makes a sandbox on PostgreSQL simulate what is not configured, and take a Stripe test key", () => {
      const sandbox = loadConfig({ ...base(), DATABASE_URL: "postgres://db.example/subbridge", SUBBRIDGE_ENVIRONMENT: "test" });
      assert.deepEqual([sandbox.environment, sandbox.platforms.simulated, sandbox.stripe.simulated], ["test", true, true]);
      const withKey = loadConfig({
        ...base(),
        SUBBRIDGE_ENVIRONMENT: "test",
        STRIPE_SECRET_KEY: "sk_test_abcdefgh12345678",
        STRIPE_WEBHOOK_SECRET: "whsec_abcdefgh12345678",
      });
      assert.deepEqual([withKey.stripe.secretKey, withKey.stripe.simulated], ["sk_test_abcdefgh12345678", false]);
    });

    it("refuses a live Stripe key on a sandbox and simulated providers on production, in one line", () => {
      const stripe = { STRIPE_WEBHOOK_SECRET: "whsec_abcdefgh12345678" };
      for (const key of ["sk_live_abcdefgh12345678", "rk_live_abcdefgh12345678"]) {
        assert.throws(
          () => loadConfig({ ...base(), ...stripe, STRIPE_SECRET_KEY: key }),
          /SUBBRIDGE_ENVIRONMENT=test refuses a live Stripe key \(sk_live_\/rk_live_\)[^\n]*$/,
        );
      }
      assert.throws(() => loadConfig({ ...base(), SUBBRIDGE_ENVIRONMENT: "live" }), /refuses the simulated platforms and Stripe/);
      // Production refuses a test-mode key, restricted or not, also when live is the default (DATABASE_URL).
      const real = { TELEGRAM_API_URL: "https://api.telegram.org", ...stripe };
      for (const key of ["sk_test_abcdefgh12345678", "rk_test_abcdefgh12345678"]) {
        for (const chosen of [{ SUBBRIDGE_ENVIRONMENT: "live" }, { DATABASE_URL: "postgres://db.example/subbridge" }])
          assert.throws(
            () => loadConfig({ ...base(), ...real, ...chosen, STRIPE_SECRET_KEY: key }),
            /SUBBRIDGE_ENVIRONMENT=live refuses a test-mode STRIPE_SECRET_KEY \(sk_test_\/rk_test_\)[^\n]*$/,
          );
      }
      assert.throws(
        () => loadConfig({ ...base(), SUBBRIDGE_ENVIRONMENT: "production" }),
        /SUBBRIDGE_ENVIRONMENT must be live or test, got "production"/,
      );
      // Production with real platforms and a live key starts.
      const live = loadConfig({
        ...base(),
        SUBBRIDGE_ENVIRONMENT: "live",
        TELEGRAM_API_URL: "https://api.telegram.org",
        STRIPE_SECRET_KEY: "sk_live_abcdefgh12345678",
        ...stripe,
      });
      assert.equal(live.environment, "live");
    });
  });

  it("tells a credential of another environment apart by its prefix", () => {
    assert.equal(fromOtherEnvironment("sbt_test_1_abc", "live"), true);
    assert.equal(fromOtherEnvironment("sbo_live_1_abc", "test"), true);
    assert.equal(fromOtherEnvironment("sbr_test_abc", "test"), false);
    assert.equal(fromOtherEnvironment("sbt_live_1_abc", "live"), false);
    assert.equal(fromOtherEnvironment("something-else", "live"), false);
  });

  describe("a sandbox beside production", () => {
    // The suite's API is live (its creator's token is sbt_live_); the sandbox serves the same database as test.
    const suite = useApiWithCreator();
    let sandbox: RunningApi;
    let sandboxMcp: RunningMcp;
    let testToken: string;

    before(async () => {
      sandbox = await startApi();
      sandbox.deps.environment = "test";
      sandboxMcp = await startMcp({ baseUrl: sandbox.url, environment: "test" });
      const { db } = await testDatabase();
      const actor: Actor & { userId: string } = {
        userId: suite.creator.userId,
        teamId: suite.creator.teamId,
        projectIds: null,
        kind: "system",
        credentialKind: null,
        requestId: null,
      };
      const minted = await db.transaction((trx) =>
        mintToken(
          createDomainContext(trx, actor, new Date()),
          { name: "sandbox", abilities: ["team:view", "token:create", "token:view-any"] },
          null,
          "test",
        ),
      );
      testToken = minted.token;
    });
    after(() => Promise.all([sandbox?.close(), sandboxMcp?.close()]));

    const get = (url: string, token: string) => new ApiClient(url, token).get("/v1/teams/current");

    it("mints sbt_test_ tokens, over REST too, which the sandbox takes", async () => {
      assert.match(testToken, /^sbt_test_\d+_[A-Za-z0-9]{40}$/);
      assert.equal(parseBearer(testToken, "test")?.id !== undefined, true);
      assert.equal((await get(sandbox.url, testToken)).status, 200);
      const res = await new ApiClient(sandbox.url, testToken).post("/v1/tokens", { name: "from REST", abilities: ["team:view"] });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.match(res.body.token, /^sbt_test_\d+_/);
      assert.equal((await get(sandbox.url, res.body.token)).status, 200);
      // Production mints sbt_live_ (the suite's creator token came from there).
      assert.match(suite.creator.token, /^sbt_live_/);
    });

    it("refuses each environment's tokens on the other over REST: 401 AUTHENTICATION_REQUIRED naming the environment", async () => {
      const refused = expectError(await get(sandbox.url, suite.creator.token), 401, "AUTHENTICATION_REQUIRED");
      assert.match(refused.message, /minted for another environment; this server accepts only sbt_test_ tokens/);
      const refusedLive = expectError(await get(suite.api.url, testToken), 401, "AUTHENTICATION_REQUIRED");
      assert.match(refusedLive.message, /accepts only sbt_live_ tokens/);
    });

    it("refuses them over MCP too", async () => {
      const live = await rawRpc(sandboxMcp, "tools/list", { token: suite.creator.token });
      assert.equal(live.status, 401);
      assert.equal(live.body.error.code, "AUTHENTICATION_REQUIRED");
      assert.match(live.body.error.message, /another environment/);
      assert.equal((await rawRpc(sandboxMcp, "tools/list", { token: testToken })).status, 200);
    });
  });
});
