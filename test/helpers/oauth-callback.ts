// A client's redirect URI for browser tests: a real loopback listener (as a native MCP client runs
// one), so the browser's last hop of the OAuth flow is an ordinary navigation the test can read.
import { createServer } from "node:http";
import { listenOnLoopback } from "./open-resources.ts";

export interface OAuthCallback {
  /** http://127.0.0.1:<port>/callback */
  url: string;
  /** The query of the next request to /callback (code and state, or error and state). */
  next(): Promise<URLSearchParams>;
  close(): Promise<void>;
}

export async function startOAuthCallback(): Promise<OAuthCallback> {
  const waiting: ((params: URLSearchParams) => void)[] = [];
  const arrived: URLSearchParams[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<!doctype html><title>Done</title><h1>You can close this window</h1>");
    const take = waiting.shift();
    if (take) take(url.searchParams);
    else arrived.push(url.searchParams);
  });
  const { port, close } = await listenOnLoopback(server, "OAuth callback");
  return {
    url: `http://127.0.0.1:${port}/callback`,
    next: () => {
      const ready = arrived.shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
    close,
  };
}
