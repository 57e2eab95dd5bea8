// One POST to an endpoint, connected to the address the guard checked: the dispatcher passes a
// lookup that answers only that address, so the name is not resolved again between the check and
// the connection (no DNS-rebinding window). TLS 1.2 at least, the full chain validated against the
// system's (or NODE_EXTRA_CA_CERTS') roots, no pinning, no redirects followed; the whole exchange
// is bounded by the network's time-out and the answer's excerpt by EXCERPT_LENGTH characters.
// Workers keep connections alive in an AgentPool: one agent per team, origin and checked address, so
// a kept-alive connection still goes only to an address that was checked for this delivery, and
// teams sharing a receiving origin never queue behind each other's requests (issue 43).
import type { LookupAddress } from "node:dns";
import { isIP } from "node:net";
import type { Agent } from "undici";

/** undici, loaded with the first delivery: a process that sends none (an API process, a quiet sandbox) does without its 1.6 MB of source. */
let undiciModule: Promise<typeof import("undici")> | undefined;
const loadUndici = () => (undiciModule ??= import("undici"));

/** How much of an answer's body a delivery keeps. */
export const EXCERPT_LENGTH = 1024;

export interface PostAnswer {
  status: number;
  excerpt: string;
  durationMs: number;
}

export class EndpointUnreachable extends Error {
  constructor(
    readonly reason: "timeout" | "connection_failed",
    message: string,
  ) {
    super(message);
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup replacement that answers `address` whatever the name. */
function pinnedLookup(address: string) {
  const family = isIP(address);
  return (_hostname: string, options: { all?: boolean }, callback: LookupCallback) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

async function excerptOf(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  let text = "";
  for await (const chunk of body) {
    text += chunk.toString("utf8");
    if (text.length >= EXCERPT_LENGTH) break;
  }
  body.destroy();
  return text.slice(0, EXCERPT_LENGTH).replace(/\u0000/g, "\uFFFD");
}

/** An agent connecting to `address` only: kept alive with up to `connections` at once, or one-off (null). */
function pinnedAgent(undici: typeof import("undici"), address: string, timeoutMs: number, connections: number | null): Agent {
  return new undici.Agent({
    connect: { lookup: pinnedLookup(address) as never, minVersion: "TLSv1.2", rejectUnauthorized: true, timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    pipelining: connections === null ? 0 : 1,
    ...(connections === null ? { connections: 1 } : { keepAliveTimeout: 4_000, connections }),
  });
}

/**
 * Kept-alive agents of a worker, one per team, origin and address, the least recently used closed
 * past `max`. Each has as many connections as a team may have attempts in flight
 * (`connectionsPerTeam`), so an attempt the claim let through is sent at once: the claim's caps
 * stay the only queue, and one team's slow requests hold only that team's connections.
 */
export class AgentPool {
  private readonly agents = new Map<string, Agent>();
  constructor(
    private readonly timeoutMs: number,
    private readonly connectionsPerTeam: number,
    private readonly max = 256,
  ) {}

  async agentFor(teamId: string, url: URL, address: string): Promise<Agent> {
    // Awaited first: from here on nothing yields, so two deliveries cannot both make the team's agent.
    const undici = await loadUndici();
    const key = `${teamId} ${url.origin} ${address}`;
    let agent = this.agents.get(key);
    if (agent) this.agents.delete(key);
    else agent = pinnedAgent(undici, address, this.timeoutMs, this.connectionsPerTeam);
    this.agents.set(key, agent);
    if (this.agents.size > this.max) {
      const [oldest, evicted] = this.agents.entries().next().value as [string, Agent];
      this.agents.delete(oldest);
      evicted.close().catch(() => undefined);
    }
    return agent;
  }

  async close(): Promise<void> {
    const all = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(all.map((a) => a.close().catch(() => undefined)));
  }
}

/**
 * Posts `body` to `url`, connecting to `address` only: through the pool's agent of the team when
 * `via` names them, else on a one-off connection.
 */
export async function postToAddress(
  url: URL,
  address: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  via?: { pool: AgentPool; teamId: string },
): Promise<PostAnswer> {
  const undici = await loadUndici();
  const agent = via ? await via.pool.agentFor(via.teamId, url, address) : pinnedAgent(undici, address, timeoutMs, null);
  const started = performance.now();
  try {
    const answer = await undici.request(url, { method: "POST", body, headers, dispatcher: agent, signal: AbortSignal.timeout(timeoutMs) });
    const excerpt = await excerptOf(answer.body);
    return { status: answer.statusCode, excerpt, durationMs: Math.round(performance.now() - started) };
  } catch (err) {
    const e = err as { name?: string; code?: string; message?: string };
    const timedOut = e.name === "TimeoutError" || e.name === "AbortError" || /TIMEOUT/.test(e.code ?? "");
    throw new EndpointUnreachable(
      timedOut ? "timeout" : "connection_failed",
      timedOut
        ? `The endpoint did not answer within ${timeoutMs / 1000} seconds.`
        : `The endpoint could not be reached (${e.code ?? e.message ?? "connection failed"}).`,
    );
  } finally {
    if (!via) agent.destroy().catch(() => undefined);
  }
}
