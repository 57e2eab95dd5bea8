// The operations of the bundled document as plain records: what the operation table, the
// validators and the MCP tool definitions are generated from.
import type { AbilityCatalog, Enforcement } from "./sources.ts";
import { HTTP_METHODS, MAX_PER_PAGE, WRITE_METHODS, isPublicOperation, type PaginationExtension } from "./conventions.ts";
import { deref } from "./refs.ts";
import { areaOfTag } from "./bundle.ts";

type Json = Record<string, any>;

export interface ParameterModel {
  name: string;
  required: boolean;
  description?: string;
  schema: Json;
}

export interface OperationModel {
  id: string;
  method: "GET" | "PUT" | "POST" | "DELETE" | "PATCH";
  path: string;
  summary: string;
  description: string;
  /** The MCP tool's description, written for a model (x-mcp-description); null = not yet written. */
  mcpDescription: string | null;
  tags: string[];
  /** The area the operation belongs to (its first tag): its module is src/modules/<area>. */
  area: string;
  ability: string | null;
  enforcement: Enforcement | null;
  isPublic: boolean;
  write: boolean;
  destructive: boolean;
  /** Exposed as an MCP tool: its ability is enforced over REST and MCP. */
  mcp: boolean;
  successStatus: number;
  /** Schema of the success body (with $refs), or null when the success response has no JSON body. */
  responseSchema: Json | null;
  /** The success body's media type (application/json, or text/csv for a streamed file), null when it has none. */
  successMedia: SuccessMedia | null;
  /** x-rest-only: no MCP tool although the ability is RM (a file download is no tool result). */
  restOnly: boolean;
  pathParams: ParameterModel[];
  queryParams: ParameterModel[];
  body: { required: boolean; schema: Json } | null;
  pagination: { defaultPerPage: number; maxPerPage: number; sortBy: string[]; defaultSortDirection: "asc" | "desc" } | null;
  /** x-mcp-keyset: the list's tool pages by cursor (newest first) instead of by page number. */
  keyset: boolean;
}

/** The media types a success body may have: JSON, or a file the server streams (a handler answers a FileBody). */
export const SUCCESS_MEDIA = ["application/json", "text/csv"] as const;
export type SuccessMedia = (typeof SUCCESS_MEDIA)[number];

function successMediaOf(id: string, content: Json | undefined): SuccessMedia | null {
  const types = Object.keys(content ?? {});
  if (types.length === 0) return null;
  const media = SUCCESS_MEDIA.find((m) => types.length === 1 && types[0] === m);
  if (!media) throw new Error(`spec: ${id}: a success response offers exactly one of ${SUCCESS_MEDIA.join(", ")}, not ${types.join(", ")}`);
  return media;
}

export function operationModels(doc: Json, catalog: AbilityCatalog): OperationModel[] {
  const enforcement = new Map(catalog.abilities.map((a) => [a.value, a.enforcement]));
  const models: OperationModel[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = (op.parameters ?? []).map((p: Json) => deref(doc, p));
      const toModel = (p: Json): ParameterModel => ({
        name: p.name,
        required: p.required === true,
        ...(p.description ? { description: p.description } : {}),
        schema: p.schema ?? {},
      });
      const [status, response] = Object.entries<Json>(op.responses).find(([s]) => /^2\d\d$/.test(s))!;
      const content = deref(doc, response).content as Json | undefined;
      const successMedia = successMediaOf(op.operationId, content);
      const successBody = successMedia === "application/json" ? content!["application/json"].schema : null;
      const restOnly = op["x-rest-only"] === true;
      if (successMedia !== null && successMedia !== "application/json" && !restOnly)
        throw new Error(`spec: ${op.operationId} answers ${successMedia}: mark it x-rest-only (an MCP tool answers JSON)`);
      const requestBody = op.requestBody ? deref(doc, op.requestBody) : null;
      const ability: string | null = op["x-ability"];
      const pagination = op["x-pagination"] as PaginationExtension | undefined;
      models.push({
        id: op.operationId,
        method: method.toUpperCase() as OperationModel["method"],
        path,
        summary: op.summary,
        description: op.description,
        mcpDescription: op["x-mcp-description"] ?? null,
        tags: op.tags,
        area: areaOfTag(op.tags[0]),
        ability,
        enforcement: ability ? (enforcement.get(ability) ?? null) : null,
        isPublic: isPublicOperation(op),
        write: WRITE_METHODS.has(method),
        destructive: op["x-destructive"] === true,
        mcp: ability !== null && enforcement.get(ability) === "RM" && !restOnly,
        successStatus: Number(status),
        responseSchema: successBody,
        successMedia,
        restOnly,
        pathParams: params.filter((p: Json) => p.in === "path").map(toModel),
        queryParams: params.filter((p: Json) => p.in === "query").map(toModel),
        body: requestBody ? { required: requestBody.required === true, schema: requestBody.content["application/json"].schema } : null,
        pagination: pagination
          ? {
              defaultPerPage: pagination.default_per_page,
              maxPerPage: pagination.max_per_page ?? MAX_PER_PAGE,
              sortBy: pagination.sort_by,
              defaultSortDirection: pagination.default_sort_direction ?? "desc",
            }
          : null,
        keyset: op["x-mcp-keyset"] === true,
      });
    }
  }
  return models.sort((a, b) => (a.id < b.id ? -1 : 1));
}
