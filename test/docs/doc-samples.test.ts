// Every fenced block of the READMEs and the guides is either run against npm start
// (test/flows/doc-samples.slow.test.ts) or named, with its reason, as an explanation
// (test/helpers/doc-samples.ts): a new sample cannot slip in untested by being forgotten.
import assert from "node:assert/strict";
import { CLASSIFIED, docBlocks, runnableBlocks, sampleFiles } from "../helpers/doc-samples.ts";

describe("doc samples: every code block is run or named as an explanation", () => {
  for (const file of sampleFiles()) {
    it(`classifies each block of ${file}, in order`, () => {
      const blocks = docBlocks(file);
      const table = CLASSIFIED[file] ?? [];
      const described = blocks.map(
        (b, i) => `${file}:${b.line} ${table[i]?.[1] === "run" ? "run" : table[i] ? "explained" : "UNCLASSIFIED"}: ${b.code.split("\n")[0]}`,
      );
      assert.equal(
        table.length,
        blocks.length,
        `test/helpers/doc-samples.ts lists ${table.length} blocks of ${file}, which has:\n${described.join("\n")}`,
      );
      blocks.forEach((block, i) => {
        const [first, verdict] = table[i]!;
        assert.ok(
          block.code.startsWith(first),
          `${file}:${block.line} starts ${JSON.stringify(block.code.split("\n")[0])}, the table says ${JSON.stringify(first)}`,
        );
        assert.ok(verdict === "run" || verdict.length >= 10, `${file}:${block.line}: a reason of a few words`);
      });
    });
  }

  it("runs the first samples a reader meets: the README's calls, the SDK README's client, the REST guide's first call", () => {
    const run = runnableBlocks().map((b) => `${b.file}:${b.code.split("\n")[0]}`);
    assert.ok(run.includes("README.md:TOKEN=sbt_test_1_…   # the printed token"), run.join("\n"));
    assert.ok(run.includes('sdk/README.md:import { createClient } from "@subbridge/sdk";'), run.join("\n"));
    assert.ok(run.includes('src/apps/docs/pages/guides/rest-api.md:import { createClient, PermissionError } from "@subbridge/sdk";'), run.join("\n"));
  });
});
