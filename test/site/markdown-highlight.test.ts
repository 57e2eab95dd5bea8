// The Markdown pages' code fences: highlighted on the server with highlight.js classes for the
// languages the pages use, anything else shown as escaped plain text, and raw HTML in the Markdown
// still shown as text; code blocks and tables take keyboard focus under a name.
import assert from "node:assert/strict";
import { headingParts, renderMarkdown } from "../../src/apps/site/pages/markdown.ts";

describe("Markdown rendering: highlighted code", () => {
  it("gives a fence of a registered language highlight.js spans, its text escaped", () => {
    const html = renderMarkdown('```ts\nconst tag: string = "<b>";\n```\n');
    assert.match(html, /^<pre [^>]*><code class="hljs language-ts">/);
    assert.match(html, /<span class="hljs-keyword">const<\/span>/);
    assert.match(html, /<span class="hljs-string">&quot;&lt;b&gt;&quot;<\/span>/);
    assert.doesNotMatch(html, /<b>/);
    for (const [lang, token] of [
      ["json", "hljs-attr"],
      ["sh", "hljs-comment"],
      ["http", "hljs-keyword"],
      ["yaml", "hljs-attr"],
      ["js", "hljs-keyword"],
    ] as const) {
      const code = { json: '{"a": 1}', sh: "npm test # fast", http: "GET /v1/ping HTTP/1.1", yaml: "a: 1", js: "let a = 1;" }[lang];
      assert.match(renderMarkdown("```" + lang + "\n" + code + "\n```\n"), new RegExp(`class="${token}"`), lang);
    }
  });

  it("shows a fence of another language, or of none, as escaped plain text", () => {
    for (const fence of ["```\n<script>alert(1)</script>\n```\n", "```cobol\n<script>alert(1)</script>\n```\n"]) {
      const html = renderMarkdown(fence);
      assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
      assert.doesNotMatch(html, /<script|<span/);
    }
    assert.match(renderMarkdown("```\nx\n```\n"), /<code class="hljs">/);
  });

  it("still shows raw HTML in the Markdown as text", () => {
    const html = renderMarkdown('<div onclick="x()">block</div>\n\nInline <img src=x onerror=alert(1)> here.\n');
    assert.doesNotMatch(html, /<div|<img/);
    assert.match(html, /&lt;div onclick=&quot;x\(\)&quot;&gt;block&lt;\/div&gt;/);
    assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
  });

  it("makes code blocks and tables, which scroll sideways on a narrow screen, keyboard-focusable and named", () => {
    const html = renderMarkdown(
      "# Guide\n\n```sh\nnpm install\n```\n\n## Rate limits {#limits}\n\n| Plan | Per minute |\n|---|---|\n| Free | 60 |\n\n```\nplain\n```\n",
    );
    const blocks = [...html.matchAll(/<pre[^>]*>/g)].map((m) => m[0]);
    assert.deepEqual(blocks, [
      '<pre tabindex="0" role="group" aria-label="Code block 1">',
      '<pre tabindex="0" role="group" aria-label="Code block 2">',
    ]);
    // A table is named by the heading it stands under (by id, so the name is the heading's text).
    assert.match(html, /<table tabindex="0" aria-labelledby="limits">/);
    assert.match(renderMarkdown("| a |\n|---|\n| 1 |\n"), /^<table tabindex="0" aria-label="Table">/);
    // Each page counts its own code blocks from 1.
    assert.match(renderMarkdown("```\nx\n```\n"), /^<pre tabindex="0" role="group" aria-label="Code block 1">/);
  });

  it("anchors headings by their text, or by an explicit {#id}", () => {
    assert.deepEqual(headingParts("Rate limits"), { text: "Rate limits", id: "rate-limits" });
    assert.deepEqual(headingParts("`subscription.created` {#subscription.created}"), { text: "`subscription.created`", id: "subscription.created" });
    assert.match(renderMarkdown("### `a.b` {#a.b}\n"), /^<h3 id="a\.b"><code>a\.b<\/code><\/h3>/);
  });
});
