// Search over the reference site's Markdown pages, built once at start: each page is cut into
// sections at its h2 and h3 headings (the text before the first is the page's own section), and
// MiniSearch indexes their headings and text. A hit names its page, its heading and the heading's
// anchor, with a snippet of the text around the first matched word.
import MiniSearch, { type SearchResult } from "minisearch";
import type { Token, Tokens } from "marked";
import { headingParts, markdownTokens } from "../site/pages/markdown.ts";
import type { MarkdownPage } from "../site/pages/markdown-routes.ts";

/** Longer queries are cut to this many characters, and to this many words: fuzzy matching costs per word. */
export const QUERY_MAX_LENGTH = 100;
const QUERY_MAX_WORDS = 8;
/** At most this many hits are listed. */
export const RESULTS_MAX = 20;
const SNIPPET_LENGTH = 200;

interface Section {
  id: number;
  path: string;
  pageTitle: string;
  heading: string;
  /** The heading's id, or null for the page's opening section. */
  anchor: string | null;
  text: string;
}

export interface SnippetPart {
  text: string;
  matched: boolean;
}

export interface SearchHit {
  pageTitle: string;
  heading: string;
  /** The page, at the section's heading. */
  href: string;
  snippet: SnippetPart[];
}

export interface SearchAnswer {
  /** The query as searched (trimmed, cut to the limits). */
  query: string;
  hits: SearchHit[];
  /** More sections matched than are listed. */
  more: boolean;
}

const BLOCKS = new Set(["paragraph", "heading", "code", "list", "list_item", "table", "blockquote", "space", "hr"]);

/** The readable text of Markdown tokens: code and table cells included, markup left out, a line break after each block. */
function plainText(tokens: readonly Token[]): string {
  return tokens
    .map((token): string => {
      let text: string;
      if (token.type === "table") {
        const table = token as Tokens.Table;
        text = [table.header, ...table.rows].map((row) => row.map((cell) => plainText(cell.tokens)).join(" ")).join("\n");
      } else if (token.type === "list") text = (token as Tokens.List).items.map((item) => plainText(item.tokens)).join("\n");
      else if ("tokens" in token && token.tokens) text = plainText(token.tokens);
      else text = "text" in token && typeof token.text === "string" ? token.text : "";
      return BLOCKS.has(token.type) ? `${text}\n` : text;
    })
    .join("");
}

export function pageSections(page: MarkdownPage): Omit<Section, "id">[] {
  const sections: Omit<Section, "id">[] = [];
  let current = { heading: page.title, anchor: null as string | null, tokens: [] as Token[] };
  const close = () => {
    const text = plainText(current.tokens).replace(/\s+/g, " ").trim();
    if (text || current.anchor) sections.push({ path: page.path, pageTitle: page.title, heading: current.heading, anchor: current.anchor, text });
  };
  for (const token of markdownTokens(page.markdown)) {
    if (token.type === "heading" && (token.depth === 2 || token.depth === 3)) {
      close();
      const heading = token as Tokens.Heading;
      current = { heading: headingParts(plainText(heading.tokens)).text.trim(), anchor: headingParts(heading.text).id, tokens: [] };
    } else if (!(token.type === "heading" && token.depth === 1)) current.tokens.push(token);
  }
  close();
  return sections;
}

/** The query a request's `q` holds: the first if repeated, trimmed, cut to the limits. */
export function normalizeQuery(q: unknown): string {
  const text = Array.isArray(q) ? q[0] : q;
  if (typeof text !== "string") return "";
  return text.replace(/\s+/g, " ").trim().slice(0, QUERY_MAX_LENGTH).split(" ").slice(0, QUERY_MAX_WORDS).join(" ").trim();
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Up to SNIPPET_LENGTH characters of the text around the first matched term, the matched terms marked. */
export function snippet(text: string, terms: readonly string[]): SnippetPart[] {
  const pattern = terms.length
    ? new RegExp(
        `(?<![\\p{L}\\p{N}])(?:${[...terms]
          .sort((x, y) => y.length - x.length)
          .map(escapeRegExp)
          .join("|")})(?![\\p{L}\\p{N}])`,
        "giu",
      )
    : null;
  const first = pattern ? text.search(pattern) : -1;
  let start = Math.max(0, (first < 0 ? 0 : first) - SNIPPET_LENGTH / 4);
  if (start > 0) start = text.indexOf(" ", start) + 1 || start;
  let end = Math.min(text.length, start + SNIPPET_LENGTH);
  if (end < text.length) end = text.lastIndexOf(" ", end) > start ? text.lastIndexOf(" ", end) : end;
  const window = (start > 0 ? "…" : "") + text.slice(start, end) + (end < text.length ? "…" : "");
  if (!pattern) return [{ text: window, matched: false }];
  const parts: SnippetPart[] = [];
  let at = 0;
  for (const match of window.matchAll(pattern)) {
    if (match.index > at) parts.push({ text: window.slice(at, match.index), matched: false });
    parts.push({ text: match[0], matched: true });
    at = match.index + match[0].length;
  }
  if (at < window.length) parts.push({ text: window.slice(at), matched: false });
  return parts;
}

export class DocsSearch {
  private readonly index: MiniSearch<Section>;
  private readonly sections: Section[];

  constructor(pages: readonly MarkdownPage[]) {
    this.sections = pages.flatMap(pageSections).map((section, id) => ({ ...section, id }));
    this.index = new MiniSearch<Section>({
      fields: ["heading", "text", "pageTitle"],
      searchOptions: {
        boost: { heading: 3, pageTitle: 1.5 },
        // The last word may be unfinished (as typed); longer words forgive a typo.
        prefix: (_term, i, terms) => i === terms.length - 1,
        fuzzy: (term) => (term.length > 5 ? 0.2 : false),
        combineWith: "AND",
      },
    });
    this.index.addAll(this.sections);
  }

  search(q: unknown): SearchAnswer {
    const query = normalizeQuery(q);
    if (!query) return { query, hits: [], more: false };
    // Every word where some section has them all; otherwise the sections with any of them.
    let results: SearchResult[] = this.index.search(query);
    if (!results.length) results = this.index.search(query, { combineWith: "OR" });
    const hits = results.slice(0, RESULTS_MAX).map((result) => {
      const section = this.sections[result.id as number]!;
      return {
        pageTitle: section.pageTitle,
        heading: section.heading,
        href: section.anchor ? `${section.path}#${section.anchor}` : section.path,
        snippet: snippet(section.text, result.terms),
      };
    });
    return { query, hits, more: results.length > RESULTS_MAX };
  }
}
