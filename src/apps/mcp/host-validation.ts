// DNS-rebinding protection for the MCP endpoint: the Host header must name this server (the
// MCP_URL host, the localhost names when MCP_URL is local, and MCP_ALLOWED_HOSTS), and an Origin,
// when a browser sends one, must name one of those hosts or an MCP_ALLOWED_ORIGINS entry ("*"
// lets every origin through; the bearer token, never a cookie, is what authorizes a request).
import type Koa from "koa";
import { localhostAllowedHostnames, validateHostHeader, validateOriginHeader } from "@modelcontextprotocol/server";
import { ApiError } from "../../errors.ts";
import { perValue } from "./per-value.ts";

export interface HostPolicy {
  hosts: string[];
  /** Origin hostnames; null = any origin. */
  origins: string[] | null;
}

export function hostPolicy(mcpUrl: string, extraHosts: readonly string[], extraOrigins: readonly string[]): HostPolicy {
  const own = new URL(mcpUrl).hostname.toLowerCase();
  const local = localhostAllowedHostnames();
  const hosts = [...new Set([own, ...(local.includes(own) ? local : []), ...extraHosts])];
  return { hosts, origins: extraOrigins.includes("*") ? null : [...new Set([...hosts, ...extraOrigins])] };
}

function refuse(message: string, mcpUrl: string): never {
  throw new ApiError("FORBIDDEN", message, {
    remediation: `Connect to ${mcpUrl}; an operator allows other names with MCP_ALLOWED_HOSTS or MCP_ALLOWED_ORIGINS.`,
  });
}

export function dnsRebindingGuard(policy: HostPolicy, mcpUrl: string): Koa.Middleware {
  // The verdicts depend on the header value only (the SDK parses it as a URL each time).
  const refusalPerValue = perValue<string | null>();
  const verdict = (key: string, judge: () => { ok: true } | { ok: false; message: string }) =>
    refusalPerValue(key, () => {
      const judged = judge();
      return judged.ok ? null : judged.message;
    });
  return async (ctx, next) => {
    const hostHeader = ctx.get("host");
    const hostRefusal = verdict(`host ${hostHeader}`, () => validateHostHeader(hostHeader || undefined, policy.hosts));
    if (hostRefusal !== null) refuse(hostRefusal, mcpUrl);
    if (policy.origins !== null) {
      const originHeader = ctx.get("origin");
      const originRefusal = verdict(`origin ${originHeader}`, () => validateOriginHeader(originHeader || undefined, policy.origins!));
      if (originRefusal !== null) refuse(originRefusal, mcpUrl);
    }
    await next();
  };
}
