// A fetch that answers from a script and records what it was sent, plus a sleep that records the
// delays it was asked for: retry behaviour is tested without a network or a clock.

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Headers;
  body: string;
  /** The signal the request was sent with (the attempt's: the caller's and the timeout's). */
  signal: AbortSignal;
}

export type ScriptStep = Response | Error | ((request: RecordedRequest) => Response | Error | Promise<Response>);

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(status === 204 ? null : JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

/** The API's error envelope for `code`. */
export function errorResponse(
  status: number,
  code: string,
  extra: { headers?: Record<string, string>; context?: Record<string, unknown>; fields?: Record<string, string[]> } = {},
): Response {
  return jsonResponse(
    status,
    {
      error: {
        code,
        message: `${code} happened`,
        docs_url: `https://docs.test/errors#${code.toLowerCase()}`,
        remediation: `Fix ${code}.`,
        request_id: "req-123",
        ...(extra.fields ? { fields: extra.fields } : {}),
        ...(extra.context ? { context: extra.context } : {}),
      },
    },
    { "x-request-id": "req-123", ...extra.headers },
  );
}

export function scriptedFetch(script: ScriptStep[]) {
  const requests: RecordedRequest[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    const recorded = {
      method: request.method,
      url: request.url,
      headers: new Headers(request.headers),
      body: await request.text(),
      signal: request.signal,
    };
    requests.push(recorded);
    const step = script.shift();
    if (step === undefined) throw new Error(`unexpected request ${request.method} ${request.url}: the script is exhausted`);
    const outcome = typeof step === "function" ? await step(recorded) : step;
    if (outcome instanceof Error) throw outcome;
    return outcome;
  };
  return { fetch, requests, remaining: () => script.length };
}

/** A step that never answers and ignores its signal: a stalled connection behind a fetch that does not heed aborts. */
export const neverAnswers: ScriptStep = () => new Promise<Response>(() => {});

/** A step that answers nothing until its signal aborts, then rejects with the reason, as fetch does. */
export const answersOnlyAbort: ScriptStep = ({ signal }) =>
  new Promise<Response>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });

/** A step that answers `response` after `ms` of real time (a few ms: tests do not wait long). */
export const answersAfter =
  (ms: number, response: () => Response): ScriptStep =>
  () =>
    new Promise<Response>((resolve) => setTimeout(() => resolve(response()), ms));

export function recordingSleep() {
  const delays: number[] = [];
  return { sleep: async (ms: number) => void delays.push(ms), delays };
}

/** A team and a minted token as the API answers them, for scripted answers. */
export const team = {
  data: {
    id: "7d3f1c52-8f1e-4a3b-9c55-2f4e1a6b7c80",
    name: "Team",
    owner_user_id: "7d3f1c52-8f1e-4a3b-9c55-2f4e1a6b7c81",
    personal: true,
    created_at: "2026-01-01T00:00:00.000Z",
  },
};
export const minted = {
  data: {
    id: "5",
    name: "x",
    kind: "personal",
    abilities: [],
    scopes: [],
    last_used_at: null,
    expires_at: null,
    created_at: "2026-01-01T00:00:00.000Z",
  },
  token: "sbt_live_5_secret",
};
