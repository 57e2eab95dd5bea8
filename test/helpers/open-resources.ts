// Every server, browser and process a test starts is registered here with how to close it, so a
// file whose setup failed halfway (Chromium missing, a port taken) cannot leave a server
// listening and the run waiting forever: the root hooks close what a file left open and fail it.
import type { AddressInfo, Server } from "node:net";
import { fileURLToPath } from "node:url";

interface OpenResource {
  label: string;
  /** The test file that opened it, read from the stack when it was opened. */
  origin: string;
  close(): Promise<unknown>;
}

const open = new Set<OpenResource>();
const TEST_ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * The test file on the current stack (the helper's caller), else the first file under test/ that
 * is not a helper (a fixture run on its own).
 */
function openingTestFile(): string {
  let fallback: string | null = null;
  for (const line of (new Error().stack ?? "").split("\n")) {
    const at = /(?:file:\/\/)?(\/[^\s():]+\.ts)/.exec(line)?.[1];
    if (!at?.startsWith(TEST_ROOT) || at.startsWith(`${TEST_ROOT}helpers/`)) continue;
    const file = `test/${at.slice(TEST_ROOT.length)}`;
    if (file.endsWith(".test.ts")) return file;
    fallback ??= file;
  }
  return fallback ?? "an unknown file";
}

/**
 * Registers something a test opened; the returned function forgets it (call it when it closes).
 * `close` must be safe to call once more after the test closed it itself.
 */
export function holdOpen(label: string, close: () => Promise<unknown>): () => void {
  const resource: OpenResource = { label, origin: openingTestFile(), close };
  open.add(resource);
  return () => open.delete(resource);
}

/** Wraps a close function so that closing also forgets the resource. */
export function closingReleases<T>(release: () => void, close: () => Promise<T>): () => Promise<T> {
  return () => {
    release();
    return close();
  };
}

/** What is open now, as "label (opened by file)". */
export function openResources(): string[] {
  return [...open].map((r) => `${r.label} (opened by ${r.origin})`);
}

/**
 * Closes everything still open (each with a bounded wait) and says what it was; the run's hooks
 * fail the file with that list.
 */
export async function closeLeftovers(timeoutMs = 10_000): Promise<string[]> {
  const left = [...open];
  open.clear();
  await Promise.all(
    left.map((r) => Promise.race([r.close().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())])),
  );
  return left.map((r) => `${r.label} (opened by ${r.origin})`);
}

/**
 * Listens on a free loopback port and registers the server; `close` ends its connections and
 * stops it (a second call does nothing).
 */
export async function listenOnLoopback(server: Server, label: string): Promise<{ port: number; close(): Promise<void> }> {
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
    server.listen(0, "127.0.0.1");
  });
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | null = null;
  const close = () =>
    (closed ??= new Promise<void>((resolve) => {
      if ("closeAllConnections" in server && typeof server.closeAllConnections === "function") server.closeAllConnections();
      server.close(() => resolve());
    }));
  const release = holdOpen(`${label} on 127.0.0.1:${port}`, close);
  return { port, close: closingReleases(release, close) };
}

/**
 * Promise.all for a test's setup (a browser, servers, a creator): when one part fails, the parts
 * that did start are closed before the failure is passed on, so nothing is left listening.
 */
export async function allOrNothing<T extends readonly unknown[] | []>(parts: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = (await Promise.allSettled(parts)) as PromiseSettledResult<unknown>[];
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (!failed) return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
  await Promise.all(
    settled.map((s) => {
      const value = s.status === "fulfilled" ? (s.value as { close?: () => Promise<unknown> } | null) : null;
      return typeof value?.close === "function" ? value.close().catch(() => undefined) : undefined;
    }),
  );
  throw failed.reason;
}
