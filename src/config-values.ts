// The parsers of single values config.ts is built from: each refuses a bad value with a
// ConfigError of one line that names the variable and what it accepts.
import ipaddr from "ipaddr.js";

export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>;

export function port(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  return portNumber(name, raw);
}

/** `raw` as a port number; `alternatives` names other accepted values in the message. */
export function portNumber(name: string, raw: string, alternatives = ""): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535)
    throw new ConfigError(`${name} must be a port number (0-65535${alternatives ? `, ${alternatives}` : ""}), got "${raw}"`);
  return value;
}

export function url(env: Env, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new ConfigError(`${name} must use http or https, got "${raw}"`);
  return raw.replace(/\/+$/, "");
}

export function urlOrNull(env: Env, name: string, protocols: string[]): string | null {
  const raw = env[name];
  if (!raw) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a ${protocols.map((p) => `${p}//`).join(" or ")} URL, got a value that does not parse`);
  }
  if (!protocols.includes(parsed.protocol)) throw new ConfigError(`${name} must be a ${protocols.map((p) => `${p}//`).join(" or ")} URL`);
  return raw;
}

/** A comma-separated list of hostnames (no scheme, no port; IPv6 in brackets), lower-cased. */
export function hostnames(env: Env, name: string, options: { allowAny?: boolean } = {}): string[] {
  const entries = (env[name] ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  for (const h of entries) {
    if (options.allowAny && h === "*") continue;
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9.-]*[a-z0-9])?)$/.test(h)) {
      throw new ConfigError(`${name} must list hostnames separated by commas (no scheme or port), got "${h}"`);
    }
  }
  return entries;
}

/** A bound in milliseconds from `name`, within [min, max]; `fallback` when unset. */
export function milliseconds(env: Env, name: string, fallback: number, min: number, max: number): number {
  return integer(env, name, fallback, min, max);
}

/** A whole number from `name`, within [min, max]; `fallback` when unset. */
export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${env[name]}"`);
  return value;
}

/** A hostname: dot-separated labels of letters, digits and inner hyphens, the last not all digits. */
const HOSTNAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;

/** An address to listen on: an IPv4 or IPv6 address, or a hostname (resolved when the server listens). */
export function listenAddress(env: Env, name: string, fallback: string): string {
  const raw = (env[name] ?? "").trim();
  if (raw === "") return fallback;
  const ip = ipaddr.IPv4.isValidFourPartDecimal(raw) || ipaddr.IPv6.isValid(raw);
  if (!ip && !(HOSTNAME.test(raw) && !/^[\d.]+$/.test(raw)))
    throw new ConfigError(
      `${name} must be an IP address of this machine (0.0.0.0 every IPv4 interface, :: every interface, 127.0.0.1 this machine only) or a hostname, got "${env[name]}"`,
    );
  return raw;
}

/** Whether `host` reaches this machine only (localhost, 127.0.0.0/8, ::1). */
export function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  return ipaddr.isValid(host) && ipaddr.process(host).range() === "loopback";
}
