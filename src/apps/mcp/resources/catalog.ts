// The six MCP resources. Documents that are the same for everyone are built once and may be
// cached publicly; subbridge://team is read live per caller and cached only privately.
import { readRepositoryText } from "../../../repository-files.ts";
import type { Knex } from "knex";
import type { Principal } from "../../../pipeline/context.ts";
import { callerTeamDocument } from "./caller-team.ts";
import { gettingStartedGuide, type GuideAddresses } from "./getting-started.ts";
import { toolsetCatalog } from "./toolsets.ts";
import { webhookEventCatalog } from "./webhook-events.ts";

export interface ResourceReader {
  db: Knex;
  principal: Principal;
  now: Date;
  requestId: string;
}

export interface McpResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: "application/json" | "text/markdown";
  cache: { ttlMs: number; cacheScope: "public" | "private" };
  read(reader: ResourceReader): Promise<string>;
}

const HOUR = 3_600_000;
const PUBLIC_DOCUMENT = { ttlMs: HOUR, cacheScope: "public" } as const;

const generatedJson = (name: string) => readRepositoryText(`generated/${name}`);

function staticJson(meta: Omit<McpResource, "mimeType" | "cache" | "read">, body: unknown): McpResource {
  const text = typeof body === "string" ? body : JSON.stringify(body, null, 2);
  return { ...meta, mimeType: "application/json", cache: PUBLIC_DOCUMENT, read: async () => text };
}

export const GETTING_STARTED_URI = "subbridge://guides/getting-started";

export function resourceCatalog(urls: GuideAddresses): McpResource[] {
  const documents: McpResource[] = [
    staticJson(
      {
        uri: "subbridge://abilities",
        name: "abilities",
        title: "Ability catalog",
        description:
          "Every ability (entity:action), its category, whether it is enforced on REST and MCP (RM) or REST only (R), and whether a new token may carry it. Tools require exactly one ability each.",
      },
      generatedJson("abilities.json"),
    ),
    staticJson(
      {
        uri: "subbridge://errors",
        name: "errors",
        title: "Error catalog",
        description:
          "Every error code a tool can answer (structuredContent.error.code when isError is true), with its HTTP status, when it happens and what to do about it.",
      },
      generatedJson("error-codes.json"),
    ),
    staticJson(
      {
        uri: "subbridge://webhook-events",
        name: "webhook-events",
        title: "Webhook event catalog",
        description:
          "The events a webhook endpoint can subscribe to, when each fires, its envelope, signature headers and how to receive deliveries. Payload shapes are published as each event ships.",
      },
      webhookEventCatalog(urls.baseUrl),
    ),
    staticJson(
      {
        uri: "subbridge://toolsets",
        name: "toolsets",
        title: "Toolsets",
        description:
          "The tool groups a connection can select with the X-MCP-Toolsets header (or ?toolsets=), each with its tools, their abilities and read-only/destructive flags.",
      },
      toolsetCatalog(),
    ),
    {
      uri: "subbridge://team",
      name: "team",
      title: "Your team and projects",
      description:
        "Live: the team this token acts on, the projects it may see (project allow-list applied), and the abilities it holds. Read this first to learn the ids tools take.",
      mimeType: "application/json",
      cache: { ttlMs: 0, cacheScope: "private" },
      read: async (reader) => JSON.stringify(await callerTeamDocument(reader.db, reader.principal, reader.now, reader.requestId), null, 2),
    },
  ];
  const uris = [GETTING_STARTED_URI, ...documents.map((d) => d.uri)];
  const guide = gettingStartedGuide(urls, uris);
  return [
    {
      uri: GETTING_STARTED_URI,
      name: "getting-started",
      title: "Getting started",
      description:
        "How to authenticate, choose toolsets, call tools, read errors (isError with the error envelope), paginate, and what is and is not idempotent. Read before the first tool call.",
      mimeType: "text/markdown",
      cache: PUBLIC_DOCUMENT,
      read: async () => guide,
    },
    ...documents,
  ];
}
