// The server's modules for the benchmark's api and mcp targets, loaded as a release runs them: the
// compiled build in dist/ (what npm start and start:prod run: plain JavaScript, no source maps) by
// default, or the sources through tsx with BENCH_SOURCES=1 (what npm run dev runs).
import { existsSync } from "node:fs";

export const BENCH_SOURCES = process.env.BENCH_SOURCES === "1";

const moduleUrl = (path: string) => new URL(BENCH_SOURCES ? `../../src/${path}.ts` : `../../dist/src/${path}.js`, import.meta.url).href;

export async function serverModules() {
  if (!BENCH_SOURCES) {
    if (!existsSync(new URL("../../dist/.built", import.meta.url))) throw new Error("no compiled build: run npm run build (or set BENCH_SOURCES=1)");
    // tsx turns them on for the launcher; node dist/src/main.js runs without them.
    process.setSourceMapsEnabled(false);
  }
  const [config, services, modules, api, mcp, registry, platforms, rateLimit] = await Promise.all([
    import(moduleUrl("config")) as Promise<typeof import("../../src/config.ts")>,
    import(moduleUrl("services")) as Promise<typeof import("../../src/services.ts")>,
    import(moduleUrl("modules/handlers")) as Promise<typeof import("../../src/modules/handlers.ts")>,
    import(moduleUrl("apps/api/api-app")) as Promise<typeof import("../../src/apps/api/api-app.ts")>,
    import(moduleUrl("apps/mcp/mcp-app")) as Promise<typeof import("../../src/apps/mcp/mcp-app.ts")>,
    import(moduleUrl("modules/connectors/registry")) as Promise<typeof import("../../src/modules/connectors/registry.ts")>,
    import(moduleUrl("outside/platforms")) as Promise<typeof import("../../src/outside/platforms.ts")>,
    import(moduleUrl("pipeline/rate-limit")) as Promise<typeof import("../../src/pipeline/rate-limit.ts")>,
  ]);
  return { ...config, ...services, ...modules, ...api, ...mcp, ...registry, ...platforms, ...rateLimit };
}
