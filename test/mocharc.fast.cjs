// The fast tier, `npm test`: every area's behaviour, the tenancy matrix and the hostile suite at
// a reduced run count, in-process (apps on port 0, no spawned process, browser or package), with
// files spread over parallel workers. What needs processes, Chromium or packaging is in the slow
// tier (test/mocharc.slow.cjs): files named *.slow.test.ts and *.browser.test.ts.
const shared = require("../.mocharc.cjs");
const tiers = require("./tiers.cjs");

// A hung run reports what it was doing and fails instead of waiting forever (test/helpers/run-hooks.ts).
process.env.TEST_DEADLINE_S ??= "900";

module.exports = {
  ...shared,
  spec: tiers.fast(),
  parallel: true,
  jobs: Number(process.env.TEST_JOBS ?? 2),
};
