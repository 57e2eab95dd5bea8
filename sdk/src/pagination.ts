// Walks a list operation page by page (REST lists are page-numbered; there are no cursors).
import type { ListEnvelope } from "./client-types.js";

/** The page after this one, from meta (current_page < last_page) or else from links.next; null at the end. */
export function nextPageNumber(envelope: Partial<ListEnvelope<unknown>>): number | null {
  const meta = envelope.meta;
  if (meta && Number.isInteger(meta.current_page) && Number.isInteger(meta.last_page)) {
    return meta.current_page < meta.last_page ? meta.current_page + 1 : null;
  }
  const next = envelope.links?.next;
  if (!next) return null;
  const page = Number(new URL(next).searchParams.get("page"));
  return Number.isInteger(page) && page > 0 ? page : null;
}

/** Yields each page from `firstPage` on, until the last page (or an empty one). */
export async function* iteratePages<Page extends ListEnvelope<unknown>>(
  fetchPage: (page: number) => Promise<Page>,
  firstPage = 1,
): AsyncGenerator<Page, void, undefined> {
  for (let page = firstPage; ;) {
    const envelope = await fetchPage(page);
    yield envelope;
    const next = nextPageNumber(envelope);
    // A next page that does not move forward would loop for ever; an empty page ends the list.
    if (next === null || next <= page || envelope.data.length === 0) return;
    page = next;
  }
}

/** Yields each item of every page. */
export async function* iterateItems<Item>(pages: AsyncIterable<ListEnvelope<Item>>): AsyncGenerator<Item, void, undefined> {
  for await (const page of pages) yield* page.data;
}
