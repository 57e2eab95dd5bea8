// A throwaway MCP surface for the conformance run and the tool-list measurement: in-memory
// PGlite, in-process KV, one creator with a token holding every grantable ability.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { migrate, openDatabase } from "../../src/db/database.ts";
import { MemoryKv } from "../../src/kv/memory.ts";
import { createCreator } from "../../src/modules/account/creators.ts";
import { createProject } from "../../src/modules/projects/projects.ts";
import { createDomainContext, systemActor } from "../../src/db/tenant.ts";
import { mintTokenForCreator } from "../../src/operator.ts";
import { handlers, preflights } from "../../src/modules/handlers.ts";
import { createMcpApp } from "../../src/apps/mcp/mcp-app.ts";
import { GroupedActivityWriter } from "../../src/modules/activity/grouped-writer.ts";
import { MCP_BUDGET, UNAUTHENTICATED_MCP_BUDGET, type Window } from "../../src/pipeline/rate-limit.ts";
import { benchAppDeps } from "./app-deps.ts";

export const RELEASE = "3.0.0";

export interface ThrowawayMcp {
  /** http://localhost:<port> */
  url: string;
  port: number;
  /** A token with every grantable ability. */
  token: string;
  mintToken(abilities: string[]): Promise<string>;
  close(): Promise<void>;
}

export async function startThrowawayMcp(options: { budget?: readonly Window[] } = {}): Promise<ThrowawayMcp> {
  const db = openDatabase({ url: null });
  await migrate(db);
  const kv = new MemoryKv();
  const now = new Date();
  const email = "harness@subbridge.local";
  const creator = await createCreator(db, { email, password: "harness password", tier: "growth", teamName: "Harness team" }, now);
  await db.transaction((trx) =>
    createProject(createDomainContext(trx, { ...systemActor(creator.teamId), userId: creator.userId }, now), { name: "Harness project" }),
  );
  const full = await mintTokenForCreator(db, { email, abilities: "all", name: "harness" }, now);

  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://localhost:${port}`;
  const logger = pino({ level: process.env.LOG_LEVEL ?? "silent" });
  const invocations = new GroupedActivityWriter(db, logger);
  const app = createMcpApp({
    db,
    kv,
    invocations,
    handlers,
    preflights,
    now: () => new Date(),
    release: RELEASE,
    mcpUrl: url,
    baseUrl: "http://localhost:4000",
    authUrl: "http://localhost:4002",
    docsUrl: "http://localhost:4004",
    logger,
    budget: options.budget ?? MCP_BUDGET,
    unauthenticatedBudget: UNAUTHENTICATED_MCP_BUDGET,
    allowedHosts: [],
    allowedOrigins: [],
    ...(await benchAppDeps()),
  });
  server.on("request", app.callback());
  return {
    url,
    port,
    token: full.token,
    mintToken: async (abilities) => (await mintTokenForCreator(db, { email, abilities }, new Date())).token,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await invocations.drain();
      await kv.close();
      await db.destroy();
    },
  };
}
