// Renderers read descriptions as Markdown (CommonMark): a bare `<id>` or `<uuid>` is an HTML tag
// there and disappears from the reference. Placeholders must be inside backticks.
import assert from "node:assert/strict";
import { readGeneratedJson } from "../../src/repository-files.ts";

function barePlaceholders(node: unknown, pointer: string, found: string[]): void {
  if (Array.isArray(node)) node.forEach((item, i) => barePlaceholders(item, `${pointer}/${i}`, found));
  else if (node && typeof node === "object")
    for (const [key, value] of Object.entries(node)) {
      const here = `${pointer}/${key}`;
      if ((key === "description" || key === "summary") && typeof value === "string") {
        const outsideCode = value.replace(/`[^`]*`/g, "");
        const tag = /<[A-Za-z_][^>\s]*>/.exec(outsideCode);
        if (tag) found.push(`${here}: ${tag[0]}`);
      } else barePlaceholders(value, here, found);
    }
}

describe("spec descriptions as rendered Markdown", () => {
  it("keeps every <placeholder> inside backticks, so the reference shows it", () => {
    const found: string[] = [];
    barePlaceholders(readGeneratedJson("openapi.json"), "", found);
    assert.deepEqual(found, []);
  });
});
