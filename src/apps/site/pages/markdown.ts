// Pages on {site_url} and {docs_url} are written once, in Markdown: the `.md` twin is that text and
// the HTML page is rendered from it here, so the two never drift. Raw HTML inside the Markdown is
// shown as text, never passed through: connector listings and catalog entries come from files
// the operator edits, and a page must not run what they hold.
import { Marked, type Tokens } from "marked";
import { escape } from "html-escaper";

/** The id a heading gets, so guides can be linked by section (`/guides/rest-api#idempotency`). */
export function headingId(text: string): string {
  return text
    .toLowerCase()
    .replace(/<[^>]*>/g, "")
    .replace(/[^a-z0-9._ -]/g, "")
    .trim()
    .replace(/\s+/g, "-");
}

const marked = new Marked({ gfm: true });
marked.use({
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag): string {
      return escape(token.text);
    },
    heading(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, token: Tokens.Heading): string {
      // An explicit id wins: `## Title {#anchor}` (used where the anchor is an event name).
      const explicit = /\s*\{#([A-Za-z0-9._-]+)\}$/.exec(token.text);
      const inline = this.parser.parseInline(token.tokens).replace(/\s*\{#[A-Za-z0-9._-]+\}$/, "");
      const id = explicit ? explicit[1]! : headingId(token.text);
      return `<h${token.depth} id="${escape(id)}">${inline}</h${token.depth}>\n`;
    },
  },
});

export function renderMarkdown(markdown: string): string {
  return marked.parse(markdown, { async: false });
}

/** Text from data (a connector's name, a tagline) made literal in Markdown: no emphasis, links or HTML. */
export function markdownText(text: string): string {
  return text.replace(/[\\`*_[\]<>|#]/g, (c) => `\\${c}`).replace(/\s*\n\s*/g, " ");
}
