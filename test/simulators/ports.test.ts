// Every simulator listener can be moved (issue 47): the simulated platforms and the Stripe twin take
// a configured port (SIMULATED_PLATFORMS_PORT, STRIPE_TWIN_PORT) and keep it strictly, so a second
// start on that port fails instead of drifting to another one; unset, they take a free port.
import assert from "node:assert/strict";
import { startFakePlatform } from "../../src/simulators/platforms/fake-platform.ts";
import { startStripeTwin } from "../../src/simulators/stripe/index.ts";
import { loadConfig } from "../../src/config.ts";
import { freePort } from "../helpers/processes.ts";

const taken = (err: NodeJS.ErrnoException) => err.code === "EADDRINUSE";

describe("simulator ports", () => {
  it("reads MAIL_CATCHER_PORT, MAIL_CATCHER_SMTP_PORT, SIMULATED_PLATFORMS_PORT and STRIPE_TWIN_PORT, each null when unset", () => {
    assert.deepEqual(loadConfig({}).simulatorPorts, { mailCatcher: null, mailCatcherSmtp: null, platforms: null, stripeTwin: null });
    const env = { MAIL_CATCHER_PORT: "5006", MAIL_CATCHER_SMTP_PORT: "5025", SIMULATED_PLATFORMS_PORT: "5010", STRIPE_TWIN_PORT: "5012" };
    assert.deepEqual(loadConfig(env).simulatorPorts, { mailCatcher: 5006, mailCatcherSmtp: 5025, platforms: 5010, stripeTwin: 5012 });
  });

  it("serves the simulated platforms on the configured port, and refuses a taken one", async () => {
    const port = await freePort();
    const fake = await startFakePlatform({ acceptAny: true, port });
    try {
      assert.equal(fake.url, `http://127.0.0.1:${port}`);
      assert.equal((await fetch(`${fake.url}/_sim/telegram`)).status, 200);
      await assert.rejects(startFakePlatform({ acceptAny: true, port }), taken);
    } finally {
      await fake.close();
    }
  });

  it("serves the Stripe twin on the configured port, and refuses a taken one", async () => {
    const port = await freePort();
    const twin = await startStripeTwin({ port });
    try {
      assert.equal(twin.url, `http://127.0.0.1:${port}`);
      await assert.rejects(startStripeTwin({ port }), taken);
    } finally {
      await twin.close();
    }
  });
});
