// The SDK names itself on every request where the runtime lets a fetch set User-Agent (Node.js,
// Bun, Deno, edge runtimes). Browsers are left alone: they send their own, and a custom header
// would need a CORS preflight the API's Access-Control-Allow-Headers does not list.
import { SDK_VERSION } from "./generated/sdk-resources.js";

/** `subbridge-sdk-typescript/<version> (<runtime>)`, e.g. `subbridge-sdk-typescript/3.0.0 (node v20.20.2; linux x64)`. */
export function userAgent(): string | null {
  const scope = globalThis as { document?: unknown; WorkerGlobalScope?: unknown; navigator?: { userAgent?: string } };
  if (scope.document !== undefined || scope.WorkerGlobalScope !== undefined) return null;
  const process = (globalThis as { process?: { version?: string; platform?: string; arch?: string; versions?: Record<string, string | undefined> } })
    .process;
  const runtime = process?.versions?.bun
    ? `bun ${process.versions.bun}`
    : process?.versions?.node
      ? `node ${process.version}; ${process.platform} ${process.arch}`
      : (scope.navigator?.userAgent ?? "unknown runtime");
  return `subbridge-sdk-typescript/${SDK_VERSION} (${runtime})`;
}
