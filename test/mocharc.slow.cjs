// The slow tier, `npm run test:slow`: what spawns processes (npm start, the CLI, workers, many
// processes and chaos runs), drives Chromium (*.browser.test.ts), packs the SDK, and the hostile
// suite at its full run counts. Needs Debian's Chromium (CHROMIUM_PATH, else /usr/bin/chromium).
const shared = require("../.mocharc.cjs");
const tiers = require("./tiers.cjs");

process.env.TEST_DEADLINE_S ??= "2700";

module.exports = {
  ...shared,
  spec: tiers.slow(),
  parallel: true,
  jobs: Number(process.env.TEST_JOBS ?? 2),
};
