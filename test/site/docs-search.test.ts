// The reference site's search index: every section it links to is an anchor of its rendered page,
// queries are cut to their limits, and a snippet marks whole matched words around the first one.
import assert from "node:assert/strict";
import { normalizeQuery, pageSections, QUERY_MAX_LENGTH, snippet } from "../../src/apps/docs/search-index.ts";
import { guidePages } from "../../src/apps/docs/pages/guides.ts";
import { docsIndexPage } from "../../src/apps/docs/pages/index-page.ts";
import { eventCatalogPage } from "../../src/apps/docs/pages/event-catalog.ts";
import { errorReferencePage, type ErrorEntry } from "../../src/apps/docs/pages/error-reference.ts";
import { renderMarkdown } from "../../src/apps/site/pages/markdown.ts";
import { readGeneratedJson } from "../../src/repository-files.ts";

const ADDRESSES = {
  baseUrl: "http://api.test",
  mcpUrl: "http://mcp.test",
  authUrl: "http://auth.test",
  siteUrl: "http://site.test",
  docsUrl: "http://docs.test",
};

describe("reference site search index", () => {
  it("cuts every page at its h2 and h3 headings, each section linking an id its rendered page has", () => {
    const { errors } = readGeneratedJson<{ errors: ErrorEntry[] }>("error-codes.json");
    const pages = [docsIndexPage(ADDRESSES), ...guidePages(ADDRESSES), eventCatalogPage(), errorReferencePage(errors)];
    for (const page of pages) {
      const ids = new Set([...renderMarkdown(page.markdown).matchAll(/ id="([^"]+)"/g)].map((m) => m[1]));
      const sections = pageSections(page);
      const headings = page.markdown.match(/^#{2,3} /gm)?.length ?? 0;
      assert.equal(sections.filter((s) => s.anchor).length, headings, page.path);
      for (const section of sections) if (section.anchor) assert.ok(ids.has(section.anchor), `${page.path}#${section.anchor}`);
    }
    const rest = pageSections(guidePages(ADDRESSES)[0]!);
    const idempotency = rest.find((s) => s.anchor === "idempotency")!;
    assert.equal(idempotency.heading, "Idempotency");
    assert.match(idempotency.text, /Idempotency-Key/);
    assert.doesNotMatch(idempotency.text, /`POST`|\*\*|\]\(/, "markup left out");
  });

  it("cuts the query to its limits and takes the first of a repeated q", () => {
    assert.equal(normalizeQuery(undefined), "");
    assert.equal(normalizeQuery(["a b", "c"]), "a b");
    assert.equal(normalizeQuery({ x: 1 }), "");
    assert.equal(normalizeQuery("  many\n\twords  "), "many words");
    assert.equal(normalizeQuery("x".repeat(1000)).length, QUERY_MAX_LENGTH);
    assert.equal(normalizeQuery("a b c d e f g h i j k").split(" ").length, 8);
  });

  it("marks whole matched words in a window around the first", () => {
    const text = `${"filler ".repeat(60)}the Idempotency-Key header; idempotent or idempotency again ${"tail ".repeat(60)}`;
    const parts = snippet(text, ["idempotency"]);
    assert.deepEqual(
      parts.filter((p) => p.matched).map((p) => p.text),
      ["Idempotency", "idempotency"],
    );
    const whole = parts.map((p) => p.text).join("");
    assert.ok(whole.startsWith("…") && whole.endsWith("…") && whole.length <= 203, whole);
    assert.deepEqual(snippet("short text", []), [{ text: "short text", matched: false }]);
  });
});
