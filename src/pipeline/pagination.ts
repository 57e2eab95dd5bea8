// The list envelope of every list operation: {data, links, meta} with absolute links.
import type { PageWindow } from "../db/pages.ts";

export interface PageQuery {
  page: number;
  per_page: number;
  sort_by: string;
  sort_direction: "asc" | "desc";
}

/** The rows a validated (clamped, sort-settled) page query selects. */
export function pageWindow(query: PageQuery): PageWindow {
  return { offset: (query.page - 1) * query.per_page, limit: query.per_page, sortBy: query.sort_by, sortDirection: query.sort_direction };
}

/**
 * The same list at another page, as the server understood the request: the effective per_page
 * (clamped, the alias limit folded in) and, when one was asked for, the effective sort_by (an
 * unoffered column already replaced by the default). Settled once; each link then sets its page.
 */
function pageUrls(resourceUrl: URL, query: PageQuery): (page: number) => string {
  const url = new URL(resourceUrl);
  url.searchParams.delete("limit");
  url.searchParams.set("per_page", String(query.per_page));
  if (url.searchParams.has("sort_by")) url.searchParams.set("sort_by", query.sort_by);
  return (page) => {
    url.searchParams.set("page", String(page));
    return url.toString();
  };
}

export function listEnvelope<T>(rows: T[], total: number, query: PageQuery, resourceUrl: URL) {
  const { page, per_page: perPage } = query;
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const pageUrl = pageUrls(resourceUrl, query);
  const from = rows.length ? (page - 1) * perPage + 1 : null;
  return {
    data: rows,
    links: {
      first: pageUrl(1),
      last: pageUrl(lastPage),
      prev: page > 1 ? pageUrl(Math.min(page - 1, lastPage)) : null,
      next: page < lastPage ? pageUrl(page + 1) : null,
    },
    meta: {
      current_page: page,
      from,
      last_page: lastPage,
      per_page: perPage,
      to: from === null ? null : from + rows.length - 1,
      total,
    },
  };
}
