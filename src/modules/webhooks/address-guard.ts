// Where a webhook may be sent: an https URL whose host is, and resolves only to, public unicast
// addresses. Registration checks it, and every send checks it again and connects to the address it
// checked (./send.ts), so a name cannot resolve public here and private there. Address classes come
// from ipaddr.js (its range table), not from hand-written range math; the operator may exempt ranges
// (WEBHOOK_ALLOWED_CIDRS) and allow http (WEBHOOK_ALLOW_HTTP) for development and tests.
//
// The URL is parsed by the WHATWG parser first, which already turns every IPv4 literal form (decimal
// 2130706433, octal 0177.0.0.1, hex 0x7f.1, short 127.1) into dotted decimal and compresses IPv6, so
// the classification below sees one canonical form.
import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import { DEFAULT_WEBHOOK_LIMITS, type WebhookLimits } from "./limits.ts";

export interface WebhookNetwork {
  /** Ranges exempt from the public-address rule (WEBHOOK_ALLOWED_CIDRS), e.g. 127.0.0.0/8 in tests. */
  allowedCidrs: readonly string[];
  /** Whether http URLs are accepted (WEBHOOK_ALLOW_HTTP): local development only. */
  allowHttp: boolean;
  /** How long one request to an endpoint may take, connection included (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** Resolves a host name to its addresses; default: the system resolver, given DNS_TIMEOUT_MS. */
  resolve?: (hostname: string) => Promise<string[]>;
  /** The fairness caps and the endpoint cap (WEBHOOK_MAX_*); DEFAULT_WEBHOOK_LIMITS where unset. */
  limits?: Partial<WebhookLimits>;
}

/** The production setting: https only, public addresses only, 10 seconds a request, the default caps. */
export const STRICT_WEBHOOK_NETWORK: WebhookNetwork = { allowedCidrs: [], allowHttp: false, timeoutMs: 10_000, limits: DEFAULT_WEBHOOK_LIMITS };

// A refusal names the setting that lifts it, so a developer testing against a local receiver is not left guessing.
const RANGE_SETTING = " (the operator can exempt address ranges with WEBHOOK_ALLOWED_CIDRS, e.g. 127.0.0.0/8)";
const HTTP_SETTING = " (the operator can accept http with WEBHOOK_ALLOW_HTTP=on)";

/** How long a registration or a send waits for a name to resolve. */
export const DNS_TIMEOUT_MS = 3_000;

/** Global unicast IPv6 (2000::/3): anything outside is unassigned, reserved or local. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

const CLASS_NAMES: Record<string, string> = {
  unspecified: "an unspecified address",
  broadcast: "the broadcast address",
  multicast: "a multicast address",
  linkLocal: "a link-local address",
  loopback: "a loopback address",
  carrierGradeNat: "a carrier-grade NAT (CGNAT) address",
  private: "a private address",
  reserved: "a reserved or documentation address",
  as112: "an AS112 sink address",
  amt: "an AMT relay address",
  uniqueLocal: "a unique local (private) address",
  deprecatedSiteLocal: "a site-local address",
  discard: "a discard-only address",
  rfc6145: "an IPv4-translated address",
  rfc6052: "a NAT64 address",
  "6to4": "a 6to4 address",
  teredo: "a Teredo address",
  benchmarking: "a benchmarking address",
  as112v6: "an AS112 sink address",
  deprecatedOrchid: "an ORCHID address",
  orchid2: "an ORCHID address",
  droneRemoteIdProtocolEntityTags: "a drone remote ID address",
  segmentRouting: "a segment-routing address",
  unassigned: "an unassigned address (outside 2000::/3)",
};

function parsedCidrs(cidrs: readonly string[]) {
  return cidrs.map((c) => ipaddr.parseCIDR(c));
}

function inAny(address: ipaddr.IPv4 | ipaddr.IPv6, ranges: ReturnType<typeof parsedCidrs>): boolean {
  return ranges.some(([base, bits]) => base.kind() === address.kind() && address.match(base, bits));
}

/** Whether a string is an IPv4/IPv6 address or CIDR range (an allowed_ips entry). */
export function isAddressOrRange(entry: string): boolean {
  return ipaddr.isValidCIDR(entry) || ipaddr.isValid(entry);
}

/** The host of a parsed URL without IPv6 brackets. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

/** Whether the (canonical) host is an address literal rather than a name. */
export function isAddressLiteral(host: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(host) || (host.includes(":") && ipaddr.IPv6.isValid(host));
}

/**
 * Why `address` may not receive webhooks ("a loopback address"), or null when it may: public
 * unicast, or inside an exempt range. An IPv4-mapped IPv6 address is judged as the IPv4 address it
 * carries for the exemption, and is refused otherwise (no public receiver needs one).
 */
export function refusedAddressClass(address: string, exempt: readonly string[] = []): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return "not an IP address";
  }
  const mapped = parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : null;
  const ranges = parsedCidrs(exempt);
  if (inAny(parsed, ranges) || (mapped && inAny(mapped, ranges))) return null;
  if (mapped) {
    const inner = mapped.range();
    return `an IPv4-mapped IPv6 address${inner === "unicast" ? "" : ` of ${CLASS_NAMES[inner] ?? inner}`}`;
  }
  let range = parsed.range() as string;
  if (range === "unicast" && parsed.kind() === "ipv6" && !parsed.match(GLOBAL_UNICAST_V6)) range = "unassigned";
  return range === "unicast" ? null : (CLASS_NAMES[range] ?? `a special-purpose (${range}) address`);
}

/** Whether `address` lies inside one of the endpoint's allowed_ips entries (addresses or CIDR ranges). */
export function withinAllowedIps(address: string, allowedIps: readonly string[]): boolean {
  const parsed = ipaddr.process(address);
  return allowedIps.some((entry) => {
    const [base, bits] = ipaddr.isValidCIDR(entry) ? ipaddr.parseCIDR(entry) : [ipaddr.process(entry), -1];
    const range = base.kind() === "ipv6" && (base as ipaddr.IPv6).isIPv4MappedAddress() ? (base as ipaddr.IPv6).toIPv4Address() : base;
    if (range.kind() !== parsed.kind()) return false;
    return bits < 0 ? range.toNormalizedString() === parsed.toNormalizedString() : parsed.match(range, bits);
  });
}

async function systemResolve(hostname: string): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("DNS time-out")), DNS_TIMEOUT_MS);
  });
  try {
    const found = await Promise.race([lookup(hostname, { all: true, verbatim: true }), timeout]);
    return found.map((a) => a.address);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The network with a worker's resolver: one lookup serves every delivery to the same host that
 * starts within `ttlMs` of it (concurrent deliveries to one receiver share it), so a name is still
 * resolved at send time, at most `ttlMs` before the connection, and every address is still checked
 * and pinned for each delivery. A failed lookup is not remembered.
 */
export function withSharedLookups(network: WebhookNetwork, ttlMs = 1_000, now: () => number = Date.now): WebhookNetwork {
  const resolve = network.resolve ?? systemResolve;
  const recent = new Map<string, { at: number; addresses: Promise<string[]> }>();
  return {
    ...network,
    resolve(hostname) {
      const hit = recent.get(hostname);
      if (hit && now() - hit.at < ttlMs) return hit.addresses;
      if (recent.size > 1_000) recent.clear();
      const addresses = resolve(hostname);
      recent.set(hostname, { at: now(), addresses });
      addresses.catch(() => recent.delete(hostname));
      return addresses;
    },
  };
}

export type UrlRefusal = "invalid" | "scheme" | "credentials" | "unresolvable" | "refused_address" | "outside_allowed_ips";

export type UrlCheck =
  { ok: true; url: URL; host: string; addresses: string[] } | { ok: false; reason: UrlRefusal; message: string; address?: string };

/** Parses a URL and says whether webhooks may be sent to it, resolving its host name. */
export async function checkWebhookUrl(raw: string, network: WebhookNetwork): Promise<UrlCheck> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "invalid", message: "must be an absolute URL" };
  }
  if (url.protocol !== "https:" && !(network.allowHttp && url.protocol === "http:")) {
    return { ok: false, reason: "scheme", message: `must use https${HTTP_SETTING}` };
  }
  if (url.username || url.password) return { ok: false, reason: "credentials", message: "must not carry a user name or password" };
  const host = bareHost(url);
  return checkHost(url, host, network);
}

/** The addresses a URL's host stands for, each checked (the send-time half of checkWebhookUrl). */
export async function checkHost(url: URL, host: string, network: WebhookNetwork): Promise<UrlCheck> {
  let addresses: string[];
  if (isAddressLiteral(host)) addresses = [host];
  else {
    try {
      addresses = await (network.resolve ?? systemResolve)(host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) return { ok: false, reason: "unresolvable", message: `the host ${host} does not resolve` };
  }
  for (const address of addresses) {
    const refused = refusedAddressClass(address, network.allowedCidrs);
    if (refused) {
      const message =
        address === host
          ? `the host ${host} is ${refused}; webhooks go to public hosts only${RANGE_SETTING}`
          : `the host ${host} resolves to ${address}, ${refused}; webhooks go to public hosts only${RANGE_SETTING}`;
      return { ok: false, reason: "refused_address", message, address };
    }
  }
  return { ok: true, url, host, addresses };
}

/**
 * The send-time check of one endpoint, shared by deliveries and the test call: its host resolved
 * now, every address public (or exempt), and inside the endpoint's allowed_ips when it has them.
 */
export async function checkEndpointAddress(url: URL, network: WebhookNetwork, allowedIps: readonly string[] | null): Promise<UrlCheck> {
  const host = bareHost(url);
  const checked = await checkHost(url, host, network);
  if (!checked.ok || allowedIps === null) return checked;
  const outside = checked.addresses.find((a) => !withinAllowedIps(a, allowedIps));
  if (outside === undefined) return checked;
  const message =
    outside === host
      ? `${host} is outside the endpoint's allowed_ips`
      : `the host ${host} resolves to ${outside}, outside the endpoint's allowed_ips`;
  return { ok: false, reason: "outside_allowed_ips", message, address: outside };
}
