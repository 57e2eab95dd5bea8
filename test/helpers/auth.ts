// The authorization server started in-process on a free port, as the auth tests use it.
import { testDatabase, testKv } from "./backends.ts";
import { DOCS_URL, serveOnFreePort, TEST_APP_KEY, testLogger } from "./server.ts";
import { testPlatformEndpoints } from "./platforms.ts";
import { createAuthApp, type AuthDeps } from "../../src/apps/auth/auth-app.ts";

export async function startAuth(options: Partial<AuthDeps> = {}) {
  const { db } = await testDatabase();
  const kv = await testKv();
  const platforms = await testPlatformEndpoints();
  // Returned so a test that starts the MCP server after this one can name it (the pages read mcpUrl per request).
  let deps!: AuthDeps;
  const running = await serveOnFreePort((url) =>
    createAuthApp(
      (deps = {
        db,
        kv,
        appKey: TEST_APP_KEY,
        now: () => new Date(),
        release: "test",
        logger: testLogger,
        authUrl: url,
        mcpUrl: "http://127.0.0.1:4001",
        baseUrl: "http://127.0.0.1:4000",
        docsUrl: DOCS_URL,
        platforms,
        ...options,
      }),
    ),
  );
  return { ...running, deps };
}
