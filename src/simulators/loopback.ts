// Where the simulators of an embedded start (the Stripe twin, the simulated platforms, the mail
// catcher's page) listen and whom they answer: loopback only, by a loopback name only. A page of
// another site that rebinds its own name to 127.0.0.1 reaches the port but sends its own name as
// Host, so it is refused before anything is read (reset links in the mail, the Bot API's state).
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { isLoopback } from "../config-values.ts";

/** Whether a Host header names this machine by a loopback name: localhost, 127.0.0.0/8 or [::1], with any port. */
export function loopbackHost(host: string | undefined): boolean {
  // A name or an IP literal and an optional port, nothing else (no user info, path or second colon).
  const name = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9.-]+))(?::[0-9]{1,5})?$/i.exec(host ?? "");
  return name !== null && isLoopback((name[1] ?? name[2]!).toLowerCase());
}

/** Answers 421 Misdirected Request to a request whose Host is no loopback name; true when it did. */
export function refusedForeignHost(req: IncomingMessage, res: ServerResponse): boolean {
  if (loopbackHost(req.headers.host)) return false;
  res
    .writeHead(421, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" })
    .end("This simulator answers only at a loopback address: localhost, 127.0.0.1 or [::1].\n");
  return true;
}

/**
 * Listens on the preferred port, or on a free one when another process holds it (two starts side by
 * side); a `strict` port (one the operator configured) is taken or the start fails with EADDRINUSE.
 */
export async function listenPreferring(server: Server, at: { host: string; port: number; strict?: boolean }): Promise<Server> {
  const attempt = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, at.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  try {
    await attempt(at.port);
  } catch (err) {
    if ((err as { code?: string }).code !== "EADDRINUSE" || at.port === 0 || at.strict) throw err;
    await attempt(0);
  }
  return server;
}
