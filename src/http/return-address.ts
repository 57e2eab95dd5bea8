// Where a browser goes after a page's action (return_to): only a path on the host that took the
// request. Every page that takes a return address reads it through safeReturnTo, so the rule is
// one function: resolved against the host's origin by the WHATWG URL parser (as a browser would
// resolve it), kept only when the origin is the same, and sent on as its normalized path and query.

/** C0 controls, DEL and the backslash: browsers drop or rewrite them, so what they mean is theirs to decide. */
const AMBIGUOUS = /[\u0000-\u001f\u007f\\]/;

/**
 * A path that a browser reads as another host's address: two slashes (or a slash and a
 * backslash) at its start are a scheme-relative URL, and an encoded one may be decoded into one.
 */
const OTHER_HOST = /^\/(?:[/\\]|%2f|%5c)/i;

/**
 * The path and query of `value` when it names a page of `origin` ("/" otherwise). An absolute URL
 * is accepted when it names `origin` itself; a fragment is dropped.
 */
export function safeReturnTo(value: string | undefined | null, origin: string): string {
  if (!value || AMBIGUOUS.test(value)) return "/";
  let url: URL;
  try {
    url = new URL(value, origin);
  } catch {
    return "/";
  }
  if (url.origin !== origin) return "/";
  const path = url.pathname + url.search;
  return path.startsWith("/") && !OTHER_HOST.test(path) && !AMBIGUOUS.test(path) ? path : "/";
}
