// Public routes of the API host that need no token: /up, the API's index and the generated documents.
import type Koa from "koa";
import { readGeneratedJson as readJson, readRepositoryText } from "../../repository-files.ts";
import { API_CATALOG_PATH, guides } from "../site/discovery/addresses.ts";
import { answerDocument, staticDocument, type StaticDocument } from "../../http/compression.ts";
import { publishedToolFile } from "../mcp/tool-catalog.ts";
import type { PaymentsPageLinks } from "../../modules/payment-methods/payments-page.ts";

export interface PublicDocument {
  path: string;
  middleware: Koa.Middleware;
}

/** A document fixed for the process's life, compressed and answered 304 to a client that holds its ETag. */
function fixedDocument(path: string, doc: StaticDocument, cacheControl: string): PublicDocument {
  return {
    path,
    middleware: async (ctx) => {
      ctx.set("Access-Control-Allow-Origin", "*");
      answerDocument(ctx, doc, cacheControl);
    },
  };
}

function jsonDocument(path: string, body: unknown): PublicDocument {
  return fixedDocument(path, staticDocument(JSON.stringify(body)), "public, max-age=300");
}

/**
 * spec/connector.schema.json byte for byte at the path of its $id
 * (https://subbridge.dev/schemas/connector.schema.json), so editors resolve connector.json's "$schema".
 */
function connectorSchemaDocument(): PublicDocument {
  const doc = staticDocument(readRepositoryText("spec/connector.schema.json"), "application/schema+json");
  return fixedDocument("/schemas/connector.schema.json", doc, "public, max-age=3600");
}

type Json = Record<string, any>;

/** What codegen/sdk-samples.ts writes: each operation's SDK sample, `{base_url}` standing for the API's address. */
interface SdkSamples {
  samples: Record<string, { source: string }>;
}

let sdkSamples: SdkSamples["samples"] | undefined;

/** An operation's SDK sample (the program the reference shows), addressed to `baseUrl`; undefined for an unknown operation. */
export function sdkSample(operationId: string, baseUrl: string): string | undefined {
  sdkSamples ??= readJson<SdkSamples>("sdk-samples.json").samples;
  return sdkSamples[operationId]?.source.replaceAll("{base_url}", baseUrl);
}

/**
 * The OpenAPI document as served: its server is this deployment's BASE_URL, and each operation
 * carries its SDK sample as Scalar's x-codeSamples, addressed to that server. Added here rather
 * than in generated/openapi.json, which stays the contract that spec:diff and reviewers compare.
 */
export function servedOpenApi(baseUrl: string): Record<string, unknown> {
  const doc = readJson<Json>("openapi.json");
  const withSample = (op: Json) => {
    const source = sdkSample(op.operationId, baseUrl);
    return source ? { ...op, "x-codeSamples": [{ lang: "typescript", label: "@subbridge/sdk", source }] } : op;
  };
  const paths = Object.fromEntries(
    Object.entries<Json>(doc.paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries<Json>(item).map(([key, value]) => [key, value && typeof value === "object" && value.operationId ? withSample(value) : value]),
      ),
    ]),
  );
  return { ...doc, servers: [{ url: baseUrl, description: "This deployment of the SubBridge REST API." }], paths };
}

/**
 * What {base_url} and {base_url}/v1 answer: the addresses everything else names as "the REST API"
 * (the start banner, the API catalog's anchor, the SDK's base URL), so a person or a crawler opening
 * them finds where to go instead of a 404.
 */
export function apiIndex(baseUrl: string, docsUrl: string, release: string) {
  const docs = guides(docsUrl);
  return {
    name: "SubBridge REST API",
    release,
    versions: { v1: `${baseUrl}/v1` },
    documentation: docs.restApi,
    reference: docs.reference,
    openapi: `${baseUrl}/openapi.json`,
    api_catalog: `${baseUrl}${API_CATALOG_PATH}`,
    ping: `${baseUrl}/v1/ping`,
  };
}

export function publicDocuments(urls: { baseUrl: string; docsUrl: string } & PaymentsPageLinks, release: string): PublicDocument[] {
  const { baseUrl } = urls;
  const index = apiIndex(baseUrl, urls.docsUrl, release);
  return [
    jsonDocument("/", index),
    jsonDocument("/v1", index),
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
    jsonDocument("/mcp-tools.json", publishedToolFile(readJson("mcp-tools.json"), urls)),
    connectorSchemaDocument(),
  ];
}
