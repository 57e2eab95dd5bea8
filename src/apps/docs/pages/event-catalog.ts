// The webhook event catalog, generated from the `webhooks` section of the OpenAPI document: one
// section per event (anchored by its name, e.g. /webhooks/events#subscription.created), grouped
// by area, with its description, payload schema and the example payload.
import type { MarkdownPage } from "../../site/pages/markdown-routes.ts";
import { readGeneratedJson } from "../../../repository-files.ts";

interface WebhookOperation {
  summary?: string;
  description?: string;
  tags?: string[];
  requestBody?: { content?: { "application/json"?: { schema?: { $ref?: string }; example?: unknown } } };
}

interface OpenApi {
  webhooks?: Record<string, { post?: WebhookOperation }>;
  tags?: { name: string }[];
}

export function eventCatalogPage(): MarkdownPage {
  const doc = readGeneratedJson<OpenApi>("openapi.json");
  const events = Object.entries(doc.webhooks ?? {}).flatMap(([name, item]) => (item.post ? [{ name, op: item.post }] : []));
  const tagOrder = (doc.tags ?? []).map((t) => t.name);
  const areas = [...new Set(events.map((e) => e.op.tags?.[0] ?? "Other"))].sort((x, y) => {
    const [ix, iy] = [tagOrder.indexOf(x), tagOrder.indexOf(y)];
    return (ix < 0 ? 1e6 : ix) - (iy < 0 ? 1e6 : iy) || x.localeCompare(y);
  });
  const sections = areas.map((area) => {
    const inArea = events.filter((e) => (e.op.tags?.[0] ?? "Other") === area).sort((x, y) => x.name.localeCompare(y.name));
    return [
      `## ${area}`,
      "",
      ...inArea.map(({ name, op }) => {
        const json = op.requestBody?.content?.["application/json"];
        const schema = json?.schema?.$ref?.split("/").pop();
        return [
          `### \`${name}\` {#${name}}`,
          "",
          `**${op.summary ?? name}.** ${op.description ?? ""}`,
          "",
          schema ? `Payload schema: \`${schema}\` (in the [reference](/reference)).` : "",
          "",
          json?.example !== undefined ? "```json\n" + JSON.stringify(json.example, null, 2) + "\n```\n" : "",
        ].join("\n");
      }),
    ].join("\n");
  });
  return {
    path: "/webhooks/events",
    title: "Webhook events",
    description: "Every event SubBridge's webhooks deliver, with its payload.",
    markdown: `# Webhook events

${events.length} events, generated from the \`webhooks\` section of the [OpenAPI document](/openapi.json).
Every delivery is an envelope \`{id, type, created_at, api_version, project_id, data}\`; \`type\` is the
event's name below and \`data\` its payload. See the [webhooks guide](/guides/webhooks) for verifying
and handling deliveries.

${events.map((e) => `[\`${e.name}\`](#${e.name})`).join(" · ")}

${sections.join("\n")}`,
  };
}
