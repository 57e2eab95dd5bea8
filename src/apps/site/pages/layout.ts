// The HTML shell of the marketing and reference pages: one stylesheet from this host, a skip link,
// the site's navigation (the current page marked for assistive technology), a search box where the
// site has search, the page's Markdown twin named as an alternate, and the rendered Markdown as the
// main content.
import { html, Html } from "../../auth/pages/html.ts";

export interface NavLink {
  href: string;
  label: string;
}

export interface Shell {
  /** The site's name in the header ("SubBridge", "SubBridge reference"). */
  siteName: string;
  home: string;
  nav: readonly NavLink[];
  footer: readonly NavLink[];
  /** A search box in the header: a GET form to this path with the query in `q` (the reference site's). */
  search?: { action: string; label: string; maxLength: number };
}

export interface PageParts {
  title: string;
  description?: string;
  /** The path of this page, to mark its navigation link as current. */
  path: string;
  /** The Markdown twin, named as `<link rel="alternate" type="text/markdown">`. */
  markdownPath?: string;
  main: Html;
  /** Scripts from this host (the reference page's renderer); never inline. */
  scripts?: readonly string[];
  /** A page that fills the window (the API reference) drops the reading-width column. */
  wide?: boolean;
  /** The search box's text (the results page shows the query it answers). */
  query?: string;
}

export function renderShell(shell: Shell, page: PageParts): string {
  const current = (href: string) => (href === page.path ? "page" : null);
  return (
    "<!doctype html>\n" +
    html`<html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${page.title === shell.siteName ? page.title : `${page.title} · ${shell.siteName}`}</title>
        ${page.description ? html`<meta name="description" content="${page.description}" />` : null}
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="/assets/site.css" />
        ${page.markdownPath ? html`<link rel="alternate" type="text/markdown" href="${page.markdownPath}" />` : null}
      </head>
      <body>
        <a class="skip-link" href="#main">Skip to content</a>
        <header class="site-header">
          <a class="brand" href="${shell.home}">${shell.siteName}</a>
          <nav aria-label="Main">
            <ul>
              ${shell.nav.map((link) => html`<li><a href="${link.href}" ${current(link.href) ? html` aria-current="page"` : null}>${link.label}</a></li>`)}
            </ul>
          </nav>
          ${
            shell.search
              ? html`<form class="site-search" role="search" action="${shell.search.action}" method="get">
                  <label class="visually-hidden" for="site-search-q">${shell.search.label}</label>
                  <input
                    id="site-search-q"
                    type="search"
                    name="q"
                    maxlength="${shell.search.maxLength}"
                    value="${page.query ?? ""}"
                    placeholder="Search"
                  />
                  <button type="submit">Search</button>
                </form>`
              : null
          }
        </header>
        <main id="main" class="${page.wide ? "wide" : "prose"}" tabindex="-1">${page.main}</main>
        <footer class="site-footer">
          <nav aria-label="Footer">
            <ul>
              ${shell.footer.map((link) => html`<li><a href="${link.href}">${link.label}</a></li>`)}
              ${page.markdownPath ? html`<li><a href="${page.markdownPath}" type="text/markdown">This page in Markdown</a></li>` : null}
            </ul>
          </nav>
        </footer>
        ${(page.scripts ?? []).map((src) => html`<script src="${src}"></script>`)}
      </body>
    </html>`.value
  );
}
