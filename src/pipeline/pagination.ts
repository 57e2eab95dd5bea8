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
 * unoffered column already replaced by the default).
 */
function pageUrl(resourceUrl: URL, page: number, query: PageQuery): string {
  const url = new URL(resourceUrl);
  url.searchParams.delete("limit");
  url.searchParams.set("per_page", String(query.per_page));
  if (url.searchParams.has("sort_by")) url.searchParams.set("sort_by", query.sort_by);
  url.searchParams.set("page", String(page));
  return url.toString();
}

export function listEnvelope<T>(rows: T[], total: number, query: PageQuery, resourceUrl: URL) {
  const { page, per_page: perPage } = query;
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const from = rows.length ? (page - 1) * perPage + 1 : null;
  return {
    data: rows,
    links: {
      first: pageUrl(resourceUrl, 1, query),
      last: pageUrl(resourceUrl, lastPage, query),
      prev: page > 1 ? pageUrl(resourceUrl, Math.min(page - 1, lastPage), query) : null,
      next: page < lastPage ? pageUrl(resourceUrl, page + 1, query) : null,
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
