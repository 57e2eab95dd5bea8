// Pages on {site_url} and {docs_url} are written once, in Markdown: the `.md` twin is that text and
// the HTML page is rendered from it here, so the two never drift. Raw HTML inside the Markdown is
// shown as text, never passed through: connector listings and catalog entries come from files
// the operator edits, and a page must not run what they hold. Code fences are highlighted here,
// on the server, so the pages need no script to show coloured code.
import { createRequire } from "node:module";
import { Marked, Renderer, type Tokens } from "marked";
import { markedHighlight } from "marked-highlight";
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

const EXPLICIT_ID = /\s*\{#([A-Za-z0-9._-]+)\}$/;

/**
 * A heading's Markdown without its explicit id, and its id: `## Title {#anchor}` (used where the
 * anchor is an event name) wins over the id made from the text.
 */
export function headingParts(markdown: string): { text: string; id: string } {
  const explicit = EXPLICIT_ID.exec(markdown);
  return explicit ? { text: markdown.slice(0, explicit.index), id: explicit[1]! } : { text: markdown, id: headingId(markdown) };
}

/** The part of highlight.js's core used here. */
interface Highlighter {
  registerLanguage(name: string, language: unknown): void;
  getLanguage(name: string): object | undefined;
  highlight(code: string, options: { language: string }): { value: string };
}

// Loaded by require, not import: highlight.js's type declarations pull the DOM library into the
// whole (server) compilation, so the project declares the three calls it makes instead.
const load = createRequire(import.meta.url);
const hljs = load("highlight.js/lib/core") as Highlighter;
// Only the languages the pages' fences name (aliases: ts, js, sh, yml); any other is plain text.
for (const name of ["bash", "http", "javascript", "json", "plaintext", "typescript", "yaml"])
  hljs.registerLanguage(name, load(`highlight.js/lib/languages/${name}`));

const highlighting = markedHighlight({
  langPrefix: "hljs language-",
  emptyLangClass: "hljs",
  highlight(code, lang) {
    // hljs escapes what it returns, so unknown and absent languages come back as escaped text too.
    return hljs.highlight(code, { language: hljs.getLanguage(lang) ? lang : "plaintext" }).value;
  },
});
const highlightedCode = highlighting.renderer!.code!;

/**
 * The page being rendered: its code blocks so far and the id of the last heading (parses are
 * synchronous, one at a time).
 */
const page = { codeBlocks: 0, headingId: "" };

// Code blocks and tables scroll sideways when wider than the column (a phone's), so each takes
// keyboard focus (arrow keys then scroll it) under a name that focus announces.
const marked = new Marked({ gfm: true }, highlighting);
marked.use({
  hooks: {
    preprocess(markdown: string): string {
      page.codeBlocks = 0;
      page.headingId = "";
      return markdown;
    },
  },
  renderer: {
    // Named by number, which the block's copy button repeats (copy-code.js).
    code(this: ThisParameterType<typeof highlightedCode>, token: Tokens.Code): string {
      const block = highlightedCode.call(this, token) as string;
      return block.replace(/^<pre>/, `<pre tabindex="0" role="group" aria-label="Code block ${++page.codeBlocks}">`);
    },
    // Named by the heading it stands under.
    table(this: Renderer, token: Tokens.Table): string {
      const name = page.headingId ? `aria-labelledby="${escape(page.headingId)}"` : `aria-label="Table"`;
      return Renderer.prototype.table.call(this, token).replace(/^<table>/, `<table tabindex="0" ${name}>`);
    },
    html(token: Tokens.HTML | Tokens.Tag): string {
      return escape(token.text);
    },
    heading(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, token: Tokens.Heading): string {
      const { id } = headingParts(token.text);
      page.headingId = id;
      const inline = this.parser.parseInline(token.tokens).replace(EXPLICIT_ID, "");
      return `<h${token.depth} id="${escape(id)}">${inline}</h${token.depth}>\n`;
    },
  },
});

export function renderMarkdown(markdown: string): string {
  return marked.parse(markdown, { async: false });
}

/** The block tokens of a page (the search index splits pages at their headings). */
export function markdownTokens(markdown: string) {
  return marked.lexer(markdown);
}

/** Text from data (a connector's name, a tagline) made literal in Markdown: no emphasis, links or HTML. */
export function markdownText(text: string): string {
  return text.replace(/[\\`*_[\]<>|#]/g, (c) => `\\${c}`).replace(/\s*\n\s*/g, " ");
}
