// The client's address, for the per-IP limits (unauthenticated MCP traffic, discovery documents,
// and later sign-in and registration). X-Forwarded-For is whatever the client wrote unless a proxy
// we trust appended to it, so it is read only as far as TRUST_PROXY allows (proxy-addr, the
// library behind Express's `trust proxy`): with nothing trusted, the socket's address is the
// client; a header can never move a client into another bucket.
import type { IncomingMessage } from "node:http";
import ipaddr from "ipaddr.js";
import proxyaddr from "proxy-addr";

export type ClientIpResolver = (req: IncomingMessage) => string;

/** What TRUST_PROXY accepts: nothing, a number of proxy hops, or addresses/CIDRs/proxy-addr names. */
export type TrustProxy = { kind: "none" } | { kind: "hops"; hops: number } | { kind: "addresses"; entries: string[] };

export const socketAddress: ClientIpResolver = (req) => req.socket.remoteAddress ?? "unknown";

/** Throws (TypeError from proxy-addr) on an entry that is not an address, a CIDR or a known name. */
export function clientIpResolver(trust: TrustProxy): ClientIpResolver {
  switch (trust.kind) {
    case "none":
      return socketAddress;
    case "hops": {
      // The socket peer is hop 0; each trusted hop lets us read one more X-Forwarded-For entry.
      const trusted = (_address: string, hop: number) => hop < trust.hops;
      return (req) => proxyaddr(req, trusted);
    }
    case "addresses": {
      const trusted = proxyaddr.compile(trust.entries);
      return (req) => proxyaddr(req, trusted);
    }
  }
}

/**
 * Parses TRUST_PROXY: unset, "", "false" or "0" trusts nothing; a positive integer trusts that
 * many proxy hops; otherwise a comma-separated list of addresses, CIDR ranges and the names
 * proxy-addr knows (loopback, linklocal, uniquelocal). "true" (trust every hop) is refused: it
 * would let any client choose its own address.
 */
export function parseTrustProxy(raw: string | undefined): TrustProxy {
  const value = (raw ?? "").trim().toLowerCase();
  if (value === "" || value === "false" || value === "0") return { kind: "none" };
  if (value === "true") throw new TypeError('"true" would trust every hop; give the number of proxies in front of the server or their addresses');
  if (/^\d+$/.test(value)) return { kind: "hops", hops: Number(value) };
  const entries = value
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  proxyaddr.compile(entries);
  return { kind: "addresses", entries };
}

/**
 * The network a per-IP budget counts: an IPv4 address (an IPv4-mapped IPv6 one as IPv4), or an
 * IPv6 address's /64. One IPv6 subscriber is routinely given a whole /64, so counting single
 * addresses would hand each client 2^64 budgets.
 */
export function clientNetwork(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === "ipv4") return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4);
  return `${ipaddr.IPv6.parse(`${parts.map((p) => p.toString(16)).join(":")}::`).toString()}/64`;
}
