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
 * The query is kept apart from a URL: a URL's searchParams re-serialise and re-parse the whole
 * address on every change (about 4 % of a list request's CPU samples in a profile).
 */
function pageUrls(resourceUrl: URL, query: PageQuery): (page: number) => string {
  const address = `${resourceUrl.origin}${resourceUrl.pathname}?`;
  const params = new URLSearchParams(resourceUrl.search);
  params.delete("limit");
  params.set("per_page", String(query.per_page));
  if (params.has("sort_by")) params.set("sort_by", query.sort_by);
  return (page) => {
    params.set("page", String(page));
    return address + params.toString();
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
