// Walks a list operation page by page (REST lists are page-numbered; there are no cursors), and the
// PagePromise the resource methods' lists return.
import type { ListEnvelope, PagePromise } from "./generated/sdk-resources.js";

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

/**
 * A list call that sends nothing until it is awaited or iterated. The first page is fetched once
 * and shared by `await`, `for await`, `pages()` and `toArray()`; later pages as a loop reaches them.
 */
export function pagePromise<Page extends ListEnvelope<unknown>>(fetchPage: (page: number) => Promise<Page>, firstPage = 1): PagePromise<Page> {
  let first: Promise<Page> | undefined;
  const fetchFirst = () => (first ??= fetchPage(firstPage));
  const pages = () => iteratePages((page) => (page === firstPage ? fetchFirst() : fetchPage(page)), firstPage);
  const items = () => iterateItems(pages()) as AsyncGenerator<Page["data"][number], void, undefined>;
  return {
    then: (onFulfilled, onRejected) => fetchFirst().then(onFulfilled, onRejected),
    catch: (onRejected) => fetchFirst().catch(onRejected),
    finally: (onFinally) => fetchFirst().finally(onFinally),
    [Symbol.toStringTag]: "PagePromise",
    [Symbol.asyncIterator]: items,
    pages,
    async toArray(options) {
      const limit = options?.limit;
      if (!Number.isInteger(limit) || limit < 1)
        throw new RangeError(`toArray needs { limit }, a whole number of items above 0 (it is ${String(limit)})`);
      const collected: Page["data"][number][] = [];
      // Leaving the loop returns the generator, so no page after the one that reached the limit is fetched.
      for await (const item of items()) if (collected.push(item) >= limit) break;
      return collected;
    },
  };
}
