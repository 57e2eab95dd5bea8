// The SDK's typed webhook events: for each event of the bundled document's `webhooks` section,
// the component schema its body is declared with, as an entry of one interface, plus the sorted
// list of event names. The SDK (sdk/src/webhook-events.ts) turns the interface into a
// discriminated union; the schemas' types themselves stay openapi-typescript's (generated/openapi.d.ts),
// so no shape is written twice. Several events share a schema whose `type` is a plain string; the
// union gives each member its literal name.
import { codeFile, type GeneratedFile } from "./output.ts";

type Json = Record<string, any>;

const COMPONENT_REF = /^#\/components\/schemas\/([A-Za-z0-9_]+)$/;

/** Each event name and the component schema of its JSON body, sorted by name. */
export function webhookEventSchemas(doc: Json): { type: string; schema: string; summary: string }[] {
  return Object.entries<Json>(doc.webhooks ?? {})
    .map(([type, item]) => {
      const ref: unknown = item.post?.requestBody?.content?.["application/json"]?.schema?.$ref;
      const schema = typeof ref === "string" ? COMPONENT_REF.exec(ref)?.[1] : undefined;
      // An inline schema would have no openapi-typescript name to reuse; the spec always names one.
      if (!schema) throw new Error(`spec: webhook ${type} must declare its application/json body as a $ref to a components schema`);
      if (!doc.components?.schemas?.[schema]) throw new Error(`spec: webhook ${type} refers to the missing schema ${schema}`);
      return { type, schema, summary: String(item.post?.summary ?? "").trim() };
    })
    .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

/** A JSDoc line body: no comment terminator can leak out of the spec's prose. */
function docText(text: string): string {
  return text.replace(/\*\//g, "*\\/").replace(/\s+/g, " ");
}

export function emitWebhookEvents(doc: Json): GeneratedFile {
  const events = webhookEventSchemas(doc);
  const entries = events.map(({ type, schema, summary }) =>
    [summary ? `  /** ${docText(summary)}. */` : null, `  ${JSON.stringify(type)}: Schemas[${JSON.stringify(schema)}];`].filter(Boolean).join("\n"),
  );
  const names = events.map(({ type }) => `  ${JSON.stringify(type)},`);
  // Imports with .js so the file compiles unchanged in the SDK (sdk/src/generated/) and here.
  const body = `import type { components } from "./openapi.js";

type Schemas = components["schemas"];

/** The body schema of each webhook event, by event name (the spec's webhooks section). */
export interface WebhookEventSchemas {
${entries.join("\n")}
}

/** Every webhook event name of this release, sorted. */
export const WEBHOOK_EVENT_TYPES = [
${names.join("\n")}
] as const;
`;
  return codeFile("webhook-events.ts", "webhook-events.ts", "generated/openapi.json (webhooks)", body);
}
