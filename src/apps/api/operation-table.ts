// The API's operations by method and path in find-my-way's radix tree: one lookup per request,
// where @koa/router tests every route's pattern in turn and allocates for each test (a fifth of a
// GET's bytes; docs/performance.md). It matches as @koa/router's defaults match the other routes:
// letter case ignored in the path's fixed parts (a parameter keeps its case), a trailing slash
// optional; a fixed segment is preferred to a parameter wherever both could match.
import FindMyWay, { type HTTPMethod } from "find-my-way";
import type Koa from "koa";
import { ApiError } from "../../errors.ts";

export interface OperationEntry {
  method: string;
  /** In the router's syntax: /v1/tokens/:token. */
  path: string;
  middleware: Koa.Middleware;
}

export interface OperationTable {
  /** Runs the operation the method and path name; passes the request on when none does. */
  routes: Koa.Middleware;
  /** The methods some operation answers at `path` (HEAD with GET), for a 405's Allow header. */
  methodsAt(path: string): string[];
}

/** Longer than any request target Node accepts, so a long parameter reaches its operation's validation. */
const MAX_PARAM_LENGTH = 65_536;

interface Stored {
  middleware: Koa.Middleware;
}

export function operationTable(entries: Iterable<OperationEntry>): OperationTable {
  const tree = FindMyWay({
    caseSensitive: false,
    ignoreTrailingSlash: true,
    maxParamLength: MAX_PARAM_LENGTH,
    // A path that is not valid percent-encoding is found with no store (answered below).
    onBadUrl: () => undefined,
  });
  const methods = new Set<string>();
  const unused = () => undefined;
  for (const entry of entries) {
    const stored: Stored = { middleware: entry.middleware };
    // HEAD with every GET, as @koa/router answers it (Koa sends the GET's headers without its body).
    for (const method of entry.method === "GET" ? ["GET", "HEAD"] : [entry.method]) {
      tree.on(method as HTTPMethod, entry.path, unused, stored);
      methods.add(method);
    }
  }
  /** What find-my-way found at `method` and `path`: store null for a path that is not valid percent-encoding. */
  const lookup = (method: string, path: string) => {
    const found = tree.find(method as HTTPMethod, path);
    // A parameter is never empty (/v1/tokens//): no operation is named by such a path.
    if (found) for (const key in found.params) if (!found.params[key]) return null;
    return found;
  };
  return {
    routes: (ctx, next) => {
      const found = lookup(ctx.method, ctx.path);
      if (!found) return next();
      if (found.store === null) throw new ApiError("MALFORMED_REQUEST", "The request path is not valid percent-encoding.");
      (ctx as unknown as { params: Record<string, string | undefined> }).params = found.params;
      return (found.store as Stored).middleware(ctx, next);
    },
    methodsAt: (path) => [...methods].filter((method) => lookup(method, path)?.store),
  };
}
