// The platform conventions every operation obeys (service description, "Conventions for every
// REST endpoint" and "Pagination"), applied to the bundled document in one place so no
// operation has to repeat them and none can forget them.
type Json = Record<string, any>;

export const HTTP_METHODS = ["get", "put", "post", "delete", "patch"] as const;
export const WRITE_METHODS = new Set(["post", "put", "patch", "delete"]);
export const MAX_PER_PAGE = 100;

export interface PaginationExtension {
  default_per_page: number;
  max_per_page?: number;
  sort_by: string[];
  default_sort_direction?: "asc" | "desc";
}

const ref = (path: string) => ({ $ref: path });
const header = (name: string) => ref(`#/components/headers/${name}`);
const response = (name: string) => ref(`#/components/responses/${name}`);

export function isPublicOperation(op: Json): boolean {
  return Array.isArray(op.security) && op.security.length === 0;
}

/**
 * The schemas every list's paging parameters share. Each list's parameters refer to them (adding
 * only its own default), so the generated validators compile them once, not once per list.
 */
export const PAGINATION_SCHEMAS: Record<string, Json> = {
  PageNumber: { type: "integer", minimum: 1, description: "1-based page number." },
  PerPage: { type: "integer", minimum: 1, description: "Rows per page; values above the list's maximum are clamped to it." },
  SortColumn: { type: "string", description: "A column the list offers; any other value falls back to created_at." },
  SortDirection: { type: "string", enum: ["asc", "desc"] },
};

function paginationParameters(p: PaginationExtension): Json[] {
  const max = p.max_per_page ?? MAX_PER_PAGE;
  const columns = p.sort_by.join(", ");
  const shared = (name: string, extra: Json = {}) => ({ $ref: `#/components/schemas/${name}`, ...extra });
  return [
    {
      name: "page",
      in: "query",
      required: false,
      description: "1-based page number. A page past the last answers an empty data array with meta.total filled.",
      schema: shared("PageNumber", { default: 1 }),
    },
    {
      name: "per_page",
      in: "query",
      required: false,
      description: `Rows per page, 1 to ${max}, default ${p.default_per_page}; a higher value is clamped to ${max}.`,
      schema: shared("PerPage", { default: p.default_per_page }),
    },
    {
      name: "limit",
      in: "query",
      required: false,
      deprecated: true,
      description: "Alias of per_page, accepted where it was once documented; per_page wins when both are sent.",
      schema: shared("PerPage"),
    },
    {
      name: "sort_by",
      in: "query",
      required: false,
      description: `Column to sort by: ${columns}. Any other value falls back to created_at.`,
      schema: shared("SortColumn", { default: "created_at" }),
    },
    {
      name: "sort_direction",
      in: "query",
      required: false,
      description: `Sort direction, default ${p.default_sort_direction ?? "desc"}.`,
      schema: shared("SortDirection", { default: p.default_sort_direction ?? "desc" }),
    },
  ];
}

function addResponse(responses: Json, status: string, name: string) {
  if (!(status in responses)) responses[status] = response(name);
}

/** Mutates and returns `doc`. */
export function applyConventions(doc: Json): Json {
  doc.components ??= {};
  doc.components.schemas = { ...PAGINATION_SCHEMAS, ...doc.components.schemas };
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const isPublic = isPublicOperation(op);
      const isWrite = WRITE_METHODS.has(method);
      op.parameters = [...(op.parameters ?? [])];

      const pagination = op["x-pagination"] as PaginationExtension | undefined;
      if (pagination) op.parameters.push(...paginationParameters(pagination));
      if (isWrite && !isPublic && path.startsWith("/v1/")) op.parameters.unshift(ref("#/components/parameters/IdempotencyKey"));

      const responses: Json = op.responses;
      for (const [status, res] of Object.entries<Json>(responses)) {
        if (!/^2\d\d$/.test(status) || "$ref" in res) continue;
        res.headers = { "X-Request-Id": header("X-Request-Id"), ...(res.headers ?? {}) };
        if (!isPublic) {
          res.headers["X-RateLimit-Limit"] = header("X-RateLimit-Limit");
          res.headers["X-RateLimit-Remaining"] = header("X-RateLimit-Remaining");
        }
        if (isWrite && !isPublic) res.headers["Idempotent-Replay"] = header("Idempotent-Replay");
      }
      const hasInput = op.requestBody || op.parameters.some((p: Json) => p.in === "query");
      if (isWrite && !isPublic) addResponse(responses, "400", "IdempotencyKeyMissing");
      if (!isPublic) {
        addResponse(responses, "401", "AuthenticationRequired");
        addResponse(responses, "403", "Forbidden");
        addResponse(responses, "404", "NotFound");
      }
      if (isWrite && !isPublic) {
        addResponse(responses, "409", "IdempotencyKeyReused");
        addResponse(responses, "425", "IdempotencyReplayInProgress");
      }
      // A write may also be refused for its body itself (over 1 MiB, not UTF-8), even one that takes none.
      if (hasInput || (isWrite && !isPublic)) addResponse(responses, "422", "ValidationFailed");
      if (!isPublic) addResponse(responses, "429", "RateLimited");
      addResponse(responses, "500", "InternalServerError");
      addResponse(responses, "503", "ServiceBusy");
      op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
    }
  }
  return doc;
}
