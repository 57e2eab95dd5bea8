// The registration guard's address table: every blocked class in every literal form a URL can
// take (the WHATWG parser canonicalises them first), names resolving to blocked addresses, the
// operator's exemptions, and allowed_ips matching.
import assert from "node:assert/strict";
import {
  withSharedLookups,
  checkWebhookUrl,
  refusedAddressClass,
  STRICT_WEBHOOK_NETWORK,
  withinAllowedIps,
  type WebhookNetwork,
} from "../../../src/modules/webhooks/address-guard.ts";

const refusedLiterals: [url: string, klass: RegExp][] = [
  ["https://127.0.0.1/", /loopback/],
  ["https://127.1/", /loopback/],
  ["https://127.0.1/", /loopback/],
  ["https://2130706433/", /loopback/],
  ["https://0x7f000001/", /loopback/],
  ["https://0x7f.1/", /loopback/],
  ["https://0x7F.0x0.0x0.0x1/", /loopback/],
  ["https://017700000001/", /loopback/],
  ["https://0177.0.0.1/", /loopback/],
  ["https://0177.1/", /loopback/],
  ["https://127.0.0.1./", /loopback/],
  ["https://127.255.255.254:8443/", /loopback/],
  ["https://[::1]/", /loopback/],
  ["https://[0:0:0:0:0:0:0:1]/", /loopback/],
  ["https://0/", /unspecified/],
  ["https://0.0.0.0/", /unspecified/],
  ["https://[::]/", /unspecified/],
  ["https://10.0.0.1/", /private/],
  ["https://10.1/", /private/],
  ["https://167772161/", /private/],
  ["https://012.0.0.1/", /private/],
  ["https://172.16.0.1/", /private/],
  ["https://172.31.255.255/", /private/],
  ["https://192.168.1.1/", /private/],
  ["https://0xc0.0xa8.1.1/", /private/],
  ["https://169.254.169.254/", /link-local/],
  ["https://2852039166/", /link-local/],
  ["https://[fe80::1]/", /link-local/],
  ["https://100.64.0.1/", /CGNAT/],
  ["https://100.127.255.254/", /CGNAT/],
  ["https://224.0.0.1/", /multicast/],
  ["https://239.255.255.250/", /multicast/],
  ["https://[ff02::1]/", /multicast/],
  ["https://255.255.255.255/", /broadcast/],
  ["https://192.0.2.1/", /documentation/],
  ["https://198.51.100.7/", /documentation/],
  ["https://203.0.113.9/", /documentation/],
  ["https://[2001:db8::1]/", /documentation/],
  ["https://[3fff::1]/", /documentation/],
  ["https://198.18.0.1/", /reserved/],
  ["https://240.0.0.1/", /reserved/],
  ["https://192.0.0.8/", /reserved/],
  ["https://[fc00::1]/", /unique local/],
  ["https://[fd12:3456::1]/", /unique local/],
  ["https://[fec0::1]/", /site-local/],
  ["https://[::ffff:127.0.0.1]/", /IPv4-mapped.*loopback/],
  ["https://[::ffff:7f00:1]/", /IPv4-mapped.*loopback/],
  ["https://[0:0:0:0:0:ffff:10.0.0.1]/", /IPv4-mapped.*private/],
  ["https://[::ffff:169.254.169.254]/", /IPv4-mapped.*link-local/],
  ["https://[::ffff:8.8.8.8]/", /IPv4-mapped/],
  ["https://[::ffff:0:127.0.0.1]/", /IPv4-translated/],
  ["https://[64:ff9b::7f00:1]/", /NAT64/],
  ["https://[64:ff9b:1::1]/", /NAT64/],
  ["https://[2002:7f00:1::1]/", /6to4/],
  ["https://[2001::1]/", /Teredo/],
  ["https://[2001:2::1]/", /benchmarking/],
  ["https://[100::1]/", /discard/],
  ["https://[::127.0.0.1]/", /unassigned/],
  ["https://[::7f00:1]/", /unassigned/],
  ["https://[4000::1]/", /unassigned/],
];

const publicLiterals = ["https://93.184.215.14/hook", "https://1.1.1.1:8443/x?y=1", "https://[2606:4700:4700::1111]/", "https://8.8.8.8/"];

describe("webhook address guard", () => {
  describe("refuses every non-public address in every literal form", () => {
    for (const [url, klass] of refusedLiterals) {
      it(url, async () => {
        const checked = await checkWebhookUrl(url, STRICT_WEBHOOK_NETWORK);
        assert.equal(checked.ok, false, `${url} was accepted`);
        if (checked.ok) return;
        assert.equal(checked.reason, "refused_address");
        assert.match(checked.message, klass);
      });
    }
  });

  it("accepts public addresses, IPv4 and IPv6", async () => {
    for (const url of publicLiterals) {
      const checked = await checkWebhookUrl(url, STRICT_WEBHOOK_NETWORK);
      assert.ok(checked.ok, `${url}: ${JSON.stringify(checked)}`);
    }
  });

  it("refuses http, other schemes, credentials in the URL and what is not a URL", async () => {
    for (const [url, reason] of [
      ["http://93.184.215.14/", "scheme"],
      ["ftp://93.184.215.14/", "scheme"],
      ["file:///etc/passwd", "scheme"],
      ["javascript:alert(1)", "scheme"],
      ["https://user:pass@93.184.215.14/", "credentials"],
      ["https://user@93.184.215.14/", "credentials"],
      ["not a url", "invalid"],
      ["//93.184.215.14/", "invalid"],
    ] as const) {
      const checked = await checkWebhookUrl(url, STRICT_WEBHOOK_NETWORK);
      assert.equal(checked.ok ? "accepted" : checked.reason, reason, url);
    }
  });

  it("resolves names: refused when any address is not public, or when the name does not resolve", async () => {
    const zone: Record<string, string[]> = {
      "public.example": ["93.184.215.14", "2606:4700::1"],
      "mixed.example": ["93.184.215.14", "10.0.0.5"],
      "metadata.example": ["169.254.169.254"],
      "mapped.example": ["::ffff:127.0.0.1"],
      "nat64.example": ["64:ff9b::a00:1"],
    };
    const network: WebhookNetwork = { ...STRICT_WEBHOOK_NETWORK, resolve: async (host) => zone[host] ?? [] };
    assert.ok((await checkWebhookUrl("https://public.example/hook", network)).ok);
    for (const [host, klass] of [
      ["mixed.example", /resolves to 10\.0\.0\.5, a private address/],
      ["metadata.example", /link-local/],
      ["mapped.example", /IPv4-mapped/],
      ["nat64.example", /NAT64/],
    ] as const) {
      const checked = await checkWebhookUrl(`https://${host}/hook`, network);
      assert.ok(!checked.ok && checked.reason === "refused_address" && klass.test(checked.message), `${host}: ${JSON.stringify(checked)}`);
    }
    const nowhere = await checkWebhookUrl("https://nowhere.example/", network);
    assert.ok(!nowhere.ok && nowhere.reason === "unresolvable");
    const failing = await checkWebhookUrl("https://x.example/", { ...network, resolve: () => Promise.reject(new Error("SERVFAIL")) });
    assert.ok(!failing.ok && failing.reason === "unresolvable");
  });

  it("resolves localhost with the system resolver and refuses it", async () => {
    const checked = await checkWebhookUrl("https://localhost:8443/", STRICT_WEBHOOK_NETWORK);
    assert.ok(!checked.ok && checked.reason === "refused_address" && /loopback/.test(checked.message), JSON.stringify(checked));
  });

  it("exempts the operator's ranges (WEBHOOK_ALLOWED_CIDRS), IPv4-mapped forms included, and allows http only when told", async () => {
    const dev: WebhookNetwork = { ...STRICT_WEBHOOK_NETWORK, allowedCidrs: ["127.0.0.0/8", "fd00::/8"], allowHttp: true };
    for (const url of ["http://127.0.0.1:3000/", "https://127.1/", "https://[::ffff:127.0.0.1]/", "https://[fd00::5]/"]) {
      assert.ok((await checkWebhookUrl(url, dev)).ok, url);
    }
    for (const url of ["http://10.0.0.1/", "https://[::1]/", "https://169.254.169.254/"])
      assert.equal((await checkWebhookUrl(url, dev)).ok, false, url);
    assert.equal(refusedAddressClass("127.0.0.1", ["127.0.0.0/8"]), null);
    assert.match(refusedAddressClass("127.0.0.1", ["10.0.0.0/8"])!, /loopback/);
    assert.equal(refusedAddressClass("nonsense"), "not an IP address");
  });

  it("matches allowed_ips: addresses and CIDR ranges, IPv4 and IPv6, IPv4-mapped as IPv4", () => {
    const list = ["203.0.113.0/24", "2001:db8::/32", "198.51.100.7"];
    for (const yes of ["203.0.113.5", "2001:db8::1", "198.51.100.7", "::ffff:203.0.113.9"]) assert.ok(withinAllowedIps(yes, list), yes);
    for (const no of ["203.0.114.1", "2001:db9::1", "198.51.100.8", "10.0.0.1"]) assert.ok(!withinAllowedIps(no, list), no);
    assert.ok(!withinAllowedIps("203.0.113.5", []));
  });

  it("a worker's lookups: one serves deliveries to a host within a second; it is repeated after, and a failure is not kept", async () => {
    let clock = 0;
    let lookups = 0;
    let answer: string[] | Error = ["198.51.100.1"];
    const network = withSharedLookups(
      {
        allowedCidrs: [],
        allowHttp: false,
        timeoutMs: 1000,
        resolve: async () => {
          lookups++;
          if (answer instanceof Error) throw answer;
          return answer;
        },
      },
      1_000,
      () => clock,
    );
    const resolve = network.resolve!;
    assert.deepEqual(await Promise.all([resolve("a.example"), resolve("a.example")]), [["198.51.100.1"], ["198.51.100.1"]]);
    assert.equal(lookups, 1);
    clock = 999;
    await resolve("a.example");
    assert.equal(lookups, 1);
    clock = 1_000;
    answer = ["10.0.0.1"];
    assert.deepEqual(await resolve("a.example"), ["10.0.0.1"], "a second later the name is resolved again");
    assert.equal(lookups, 2);
    answer = new Error("SERVFAIL");
    clock = 3_000;
    await assert.rejects(resolve("a.example"));
    answer = ["198.51.100.2"];
    assert.deepEqual(await resolve("a.example"), ["198.51.100.2"]);
    assert.equal(lookups, 4);
  });
});
