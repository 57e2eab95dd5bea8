// Which test files each tier runs. The files that take longest go first, so the parallel workers
// finish together instead of one worker starting a long file last; the rest follow in path order.
const { readdirSync } = require("node:fs");
const { join } = require("node:path");

const isSlow = (file) => file.endsWith(".slow.test.ts") || file.endsWith(".browser.test.ts");

function testFiles(belongs, longestFirst) {
  const all = readdirSync(__dirname, { recursive: true })
    .map((file) => join("test", file))
    .filter((file) => file.endsWith(".test.ts") && belongs(file))
    .sort();
  for (const file of longestFirst) if (!all.includes(file)) throw new Error(`test/tiers.cjs names ${file}, which is not in this tier`);
  return [...longestFirst, ...all.filter((file) => !longestFirst.includes(file))];
}

module.exports = {
  fast: () =>
    testFiles(
      (file) => !isSlow(file),
      ["test/hostile/rest.test.ts", "test/hostile/mcp.test.ts", "test/jobs/worker.test.ts", "test/tenancy/matrix.test.ts"],
    ),
  slow: () => testFiles(isSlow, ["test/hostile/rest.slow.test.ts", "test/hostile/mcp.slow.test.ts", "test/cli/embedded-sharing.slow.test.ts"]),
};
