// Per-IP limits key on the client's address, which X-Forwarded-For can only name through proxies
// the operator trusts (TRUST_PROXY). Without that, a header cannot move a client to a fresh bucket.
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { clientIpResolver, clientNetwork, parseTrustProxy } from "../../src/http/client-ip.ts";
import { loadConfig } from "../../src/config.ts";
import { rawRpc, startMcp } from "../helpers/mcp.ts";

const request = (socket: string, forwardedFor?: string) =>
  ({
    socket: { remoteAddress: socket },
    headers: forwardedFor ? { "x-forwarded-for": forwardedFor } : {},
    connection: { remoteAddress: socket },
  }) as unknown as IncomingMessage;

describe("client address (TRUST_PROXY)", () => {
  it("trusts nothing by default: the socket's address, whatever X-Forwarded-For says", () => {
    const resolve = clientIpResolver(parseTrustProxy(undefined));
    assert.equal(resolve(request("203.0.113.9", "198.51.100.1")), "203.0.113.9");
    for (const off of ["", "false", "0"]) assert.deepEqual(parseTrustProxy(off), { kind: "none" });
  });

  it("reads one entry per trusted hop, from the right: the client's own entries never count", () => {
    const oneHop = clientIpResolver(parseTrustProxy("1"));
    assert.equal(oneHop(request("10.0.0.2", "1.2.3.4, 198.51.100.7")), "198.51.100.7");
    assert.equal(oneHop(request("10.0.0.2")), "10.0.0.2");
    const twoHops = clientIpResolver(parseTrustProxy("2"));
    assert.equal(twoHops(request("10.0.0.2", "1.2.3.4, 198.51.100.7, 10.0.0.3")), "198.51.100.7");
  });

  it("trusts proxies by address or range, and stops at the first untrusted hop", () => {
    const resolve = clientIpResolver(parseTrustProxy("loopback, 10.0.0.0/8"));
    assert.equal(resolve(request("127.0.0.1", "1.2.3.4, 198.51.100.7, 10.1.2.3")), "198.51.100.7");
    // The socket peer is not a trusted proxy: its header is the client's own words.
    assert.equal(resolve(request("203.0.113.9", "198.51.100.7")), "203.0.113.9");
  });

  it("refuses 'true' and malformed entries at start, naming the variable", () => {
    assert.throws(() => loadConfig({ TRUST_PROXY: "true" }), /TRUST_PROXY/);
    assert.throws(() => loadConfig({ TRUST_PROXY: "10.0.0.0/99" }), /TRUST_PROXY/);
    assert.deepEqual(loadConfig({ TRUST_PROXY: "2" }).trustProxy, { kind: "hops", hops: 2 });
    assert.deepEqual(loadConfig({}).trustProxy, { kind: "none" });
  });

  it("keeps the unauthenticated MCP limit (5 a minute per IP) when every request forges a new X-Forwarded-For", async () => {
    const mcp = await startMcp();
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) {
        statuses.push((await rawRpc(mcp, "tools/list", { token: null, headers: { "x-forwarded-for": `198.51.100.${i + 1}` } })).status);
      }
      assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429]);
    } finally {
      await mcp.close();
    }
  });

  it("behind a trusted proxy, counts each client the proxy reports separately", async () => {
    const mcp = await startMcp({ clientIp: clientIpResolver(parseTrustProxy("loopback")) });
    try {
      const client = (n: number) => ({ token: null, headers: { "x-forwarded-for": `203.0.113.${n}` } });
      for (let i = 0; i < 5; i++) assert.equal((await rawRpc(mcp, "tools/list", client(1))).status, 401);
      assert.equal((await rawRpc(mcp, "tools/list", client(1))).status, 429);
      assert.equal((await rawRpc(mcp, "tools/list", client(2))).status, 401, "another client has its own budget");
    } finally {
      await mcp.close();
    }
  });

  it("counts an IPv6 client by its /64, an IPv4 one (mapped or not) by its address", () => {
    assert.equal(clientNetwork("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), "2001:db8:1:2::/64");
    assert.equal(clientNetwork("2001:0db8:0001:0002::1"), "2001:db8:1:2::/64");
    assert.equal(clientNetwork("2001:db8::1"), "2001:db8::/64");
    assert.equal(clientNetwork("::1"), "::/64");
    assert.equal(clientNetwork("::ffff:203.0.113.9"), "203.0.113.9");
    assert.equal(clientNetwork("203.0.113.9"), "203.0.113.9");
    assert.equal(clientNetwork("unknown"), "unknown");
  });

  it("gives one budget to every address of an IPv6 /64: rotating the interface id earns no fresh budget", async () => {
    const mcp = await startMcp({ clientIp: clientIpResolver(parseTrustProxy("loopback")) });
    try {
      const client = (suffix: string) => ({ token: null, headers: { "x-forwarded-for": `2001:db8:5:6:${suffix}` } });
      for (let i = 0; i < 5; i++) assert.equal((await rawRpc(mcp, "tools/list", client(`${i + 1}:0:0:1`))).status, 401);
      assert.equal((await rawRpc(mcp, "tools/list", client("ffff:0:0:2"))).status, 429, "the same /64");
      const other = { token: null, headers: { "x-forwarded-for": "2001:db8:5:7::1" } };
      assert.equal((await rawRpc(mcp, "tools/list", other)).status, 401, "another /64 has its own budget");
    } finally {
      await mcp.close();
    }
  });
});
