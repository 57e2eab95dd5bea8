// Requests sent with node:http exactly as built (fetch would normalise the target, refuse some
// bodies on GET and re-encode text), and answers read as bytes.
import { Agent, request, type IncomingHttpHeaders } from "node:http";

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed body when it is JSON; undefined when there is none or it does not parse. */
  json: unknown;
  /** Set when the content type says JSON but the text does not parse. */
  jsonError?: string;
}

const keepAlive = new Agent({ keepAlive: true, maxSockets: 4 });
const TIMEOUT_MS = 20_000;

export function header(answer: HttpAnswer, name: string): string | undefined {
  const v = answer.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(", ") : v;
}

/**
 * One request. Large bodies and long targets get a connection of their own, since a server may
 * answer before reading them and then close it. An answer that arrives is kept even when the
 * connection breaks afterwards (the server refused the rest of an upload).
 *
 * A request written on a kept-alive connection that the server closed for idleness at the same
 * moment dies unanswered (ECONNRESET, "socket hang up"); Node's documentation has the client send
 * it again. It is sent once more on a connection of its own, so a server that drops a request on a
 * fresh connection still fails the test.
 */
export async function send(
  baseUrl: string,
  method: string,
  target: string,
  headers: Record<string, string>,
  body: Buffer | null,
): Promise<HttpAnswer> {
  const alone = (body?.length ?? 0) > 64 * 1024 || target.length > 8 * 1024;
  try {
    return await sendOnce(baseUrl, method, target, headers, body, alone ? false : keepAlive);
  } catch (err) {
    if (!(err instanceof StaleConnection)) throw err;
    return sendOnce(baseUrl, method, target, headers, body, false);
  }
}

/** A request lost on a reused connection the server was closing. */
class StaleConnection extends Error {}

function sendOnce(
  baseUrl: string,
  method: string,
  target: string,
  headers: Record<string, string>,
  body: Buffer | null,
  agent: Agent | false,
): Promise<HttpAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(
      {
        hostname,
        port,
        method,
        path: target,
        headers: body === null ? headers : { ...headers, "content-length": String(body.length) },
        agent,
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const answer: HttpAnswer = { status: res.statusCode!, headers: res.headers, text, json: undefined };
          if (text && /json/.test(String(res.headers["content-type"]))) {
            try {
              answer.json = JSON.parse(text);
            } catch (err) {
              answer.jsonError = (err as Error).message;
            }
          }
          resolve(answer);
        });
      },
    );
    req.setTimeout(TIMEOUT_MS, () => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    req.on("error", (err: NodeJS.ErrnoException) => {
      if (answered) return;
      reject(req.reusedSocket && err.code === "ECONNRESET" ? new StaleConnection(err.message) : err);
    });
    req.end(body ?? undefined);
  });
}

export function closeConnections(): void {
  keepAlive.destroy();
}
