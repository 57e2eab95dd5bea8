// Public routes of the API host that need no token: /up and the generated documents.
import type Koa from "koa";
import { readGeneratedJson as readJson, readRepositoryText } from "../../repository-files.ts";

export interface PublicDocument {
  path: string;
  middleware: Koa.Middleware;
}

function jsonDocument(path: string, body: unknown): PublicDocument {
  const text = JSON.stringify(body);
  return {
    path,
    middleware: async (ctx) => {
      ctx.set("Cache-Control", "public, max-age=300");
      ctx.set("Access-Control-Allow-Origin", "*");
      ctx.type = "application/json";
      ctx.body = text;
    },
  };
}

/**
 * spec/connector.schema.json byte for byte at the path of its $id
 * (https://subbridge.dev/schemas/connector.schema.json), so editors resolve connector.json's "$schema".
 */
function connectorSchemaDocument(): PublicDocument {
  const text = readRepositoryText("spec/connector.schema.json");
  return {
    path: "/schemas/connector.schema.json",
    middleware: async (ctx) => {
      ctx.set("Cache-Control", "public, max-age=3600");
      ctx.set("Access-Control-Allow-Origin", "*");
      ctx.type = "application/schema+json";
      ctx.body = text;
    },
  };
}

/** The OpenAPI document as served: its server is this deployment's BASE_URL. */
export function servedOpenApi(baseUrl: string): Record<string, unknown> {
  const doc = readJson("openapi.json");
  return { ...doc, servers: [{ url: baseUrl, description: "This deployment of the SubBridge REST API." }] };
}

export function publicDocuments(baseUrl: string, release: string): PublicDocument[] {
  return [
    {
      path: "/up",
      middleware: async (ctx) => {
        ctx.set("Cache-Control", "no-store");
        ctx.body = { status: "up", release };
      },
    },
    jsonDocument("/openapi.json", servedOpenApi(baseUrl)),
    jsonDocument("/abilities.json", readJson("abilities.json")),
    jsonDocument("/error-codes.json", readJson("error-codes.json")),
    // Every MCP tool with its ability, toolset tags, REST operation and schemas.
    jsonDocument("/mcp-tools.json", readJson("mcp-tools.json")),
    connectorSchemaDocument(),
  ];
}
