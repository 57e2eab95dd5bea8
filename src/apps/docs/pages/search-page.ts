// The reference site's search ({docs_url}/search?q=...): a results page answered by the server, so
// searching needs no script, in the shell like every page; its Markdown twin is /search.md?q=...
// (or the same address asking for text/markdown), as every other page of the site has one.
import type Koa from "koa";
import { html } from "../../auth/pages/html.ts";
import { renderShell, type Shell } from "../../site/pages/layout.ts";
import { MARKDOWN_TYPE, prefersMarkdown } from "../../site/pages/markdown-routes.ts";
import { markdownText } from "../../site/pages/markdown.ts";
import { securityHeaders } from "../../site/pages/security-headers.ts";
import { RESULTS_MAX, type DocsSearch, type SearchAnswer } from "../search-index.ts";

export const SEARCH_PATH = "/search";
const TITLE = "Search";
const HINT = "Search the guides, the webhook events and the error reference: type a few words, such as idempotency or retries.";

function summary(answer: SearchAnswer): string {
  if (!answer.query) return HINT;
  if (!answer.hits.length) return `Nothing matches “${answer.query}”. Try fewer or other words.`;
  const count = answer.more ? `The first ${RESULTS_MAX} sections` : answer.hits.length === 1 ? "1 section" : `${answer.hits.length} sections`;
  return `${count} matching “${answer.query}”.`;
}

function resultsHtml(answer: SearchAnswer) {
  return html`<h1>${TITLE}</h1>
    <p class="search-summary" role="status">${summary(answer)}</p>
    ${
      answer.hits.length
        ? html`<ol class="search-results">
            ${answer.hits.map(
              (hit) =>
                html`<li>
                  <a href="${hit.href}"
                    >${hit.heading === hit.pageTitle ? hit.pageTitle : html`<span class="search-page">${hit.pageTitle} ›</span> ${hit.heading}`}</a
                  >
                  <p>${hit.snippet.map((part) => (part.matched ? html`<mark>${part.text}</mark>` : part.text))}</p>
                </li>`,
            )}
          </ol>`
        : null
    }`;
}

function resultsMarkdown(answer: SearchAnswer): string {
  const items = answer.hits.map((hit, i) => {
    const title = hit.heading === hit.pageTitle ? hit.pageTitle : `${hit.pageTitle} › ${hit.heading}`;
    const text = hit.snippet.map((part) => (part.matched ? `**${markdownText(part.text)}**` : markdownText(part.text))).join("");
    return `${i + 1}. [${markdownText(title)}](${hit.href}): ${text}`;
  });
  return [`# ${TITLE}`, "", markdownText(summary(answer)), ...(items.length ? ["", ...items] : []), ""].join("\n");
}

export function searchPages(shell: Shell, search: DocsSearch, csp: string) {
  const common = (ctx: Koa.Context) => {
    securityHeaders(ctx, csp);
    ctx.set("Cache-Control", "public, max-age=300");
  };
  const markdown = (ctx: Koa.Context, answer: SearchAnswer) => {
    ctx.type = MARKDOWN_TYPE;
    ctx.body = resultsMarkdown(answer);
  };
  const page: Koa.Middleware = async (ctx) => {
    common(ctx);
    ctx.vary("Accept");
    const answer = search.search(ctx.query.q);
    if (prefersMarkdown(ctx)) return markdown(ctx, answer);
    ctx.type = "html";
    ctx.body = renderShell(shell, {
      title: answer.query ? `${TITLE}: ${answer.query}` : TITLE,
      description: "Search the SubBridge guides and reference.",
      path: SEARCH_PATH,
      markdownPath: answer.query ? `${SEARCH_PATH}.md?q=${encodeURIComponent(answer.query)}` : `${SEARCH_PATH}.md`,
      main: resultsHtml(answer),
      query: answer.query,
    });
  };
  const twin: Koa.Middleware = async (ctx) => {
    common(ctx);
    markdown(ctx, search.search(ctx.query.q));
  };
  return { page, twin };
}
