// generated/operations.ts: the operation table the server routes, authorizes and validates from,
// and the typed Handlers interface src/api must implement (tsc fails on a missing or mistyped
// handler).
import { SUCCESS_MEDIA, type OperationModel, type ParameterModel } from "./operation-model.ts";
import { deref } from "./refs.ts";
import { codeFile, type GeneratedFile } from "./output.ts";

type Json = Record<string, any>;

const q = (s: string) => JSON.stringify(s);
const union = (names: string[]) => (names.length ? names.map(q).join(" | ") : "never");

function defaultedNames(params: ParameterModel[]): string[] {
  return params.filter((p) => p.required || p.schema.default !== undefined).map((p) => p.name);
}

function ioType(doc: Json, op: OperationModel): string {
  const o = `operations[${q(op.id)}]`;
  const path = op.pathParams.length ? `${o}["parameters"]["path"]` : "Record<string, never>";
  const query = op.queryParams.length
    ? `WithDefaults<NonNullable<${o}["parameters"]["query"]>, ${union(defaultedNames(op.queryParams))}>`
    : "Record<string, never>";
  let body = "undefined";
  if (op.body) {
    const schema = deref(doc, op.body.schema);
    const defaulted = Object.entries<Json>(schema.properties ?? {})
      .filter(([, s]) => deref(doc, s).default !== undefined)
      .map(([name]) => name);
    const base = `NonNullable<${o}["requestBody"]>["content"]["application/json"]`;
    body = defaulted.length ? `WithDefaults<${base}, ${union(defaulted)}>` : base;
    if (!op.body.required) body += " | undefined";
  }
  const output = op.responseSchema ? `${o}["responses"][${op.successStatus}]["content"]["application/json"]` : op.successMedia ? "FileBody" : "void";
  return [`  ${op.id}: {`, `    path: ${path};`, `    query: ${query};`, `    body: ${body};`, `    output: ${output};`, `  };`].join("\n");
}

function tableRow(op: OperationModel): string {
  const row = {
    id: op.id,
    method: op.method,
    path: op.path,
    routePath: op.path.replace(/\{([^}]+)\}/g, ":$1"),
    summary: op.summary,
    tags: op.tags,
    area: op.area,
    ability: op.ability,
    enforcement: op.enforcement,
    public: op.isPublic,
    write: op.write,
    destructive: op.destructive,
    mcp: op.mcp,
    successStatus: op.successStatus,
    successBody: op.successMedia !== null,
    successMedia: op.successMedia,
    pathParams: op.pathParams.map((p) => p.name),
    queryParams: op.queryParams.map((p) => p.name),
    body: op.body ? (op.body.required ? "required" : "optional") : null,
    pagination: op.pagination,
  };
  return `  ${op.id}: ${JSON.stringify(row)},`;
}

export function emitOperations(doc: Json, ops: OperationModel[]): GeneratedFile {
  const body = [
    `import type { operations } from "./openapi.d.ts";`,
    `import type { AbilityValue, Enforcement } from "./catalog.ts";`,
    ``,
    `export type OperationId = ${union(ops.map((o) => o.id))};`,
    `export type HttpMethod = "GET" | "PUT" | "POST" | "DELETE" | "PATCH";`,
    ``,
    `/** The operations of each area (spec/openapi/areas/<area>.yaml; handlers in src/modules/<area>/handlers.ts). */`,
    `export interface AreaOperations {`,
    ...[...new Set(ops.map((o) => o.area))].sort().map((area) => `  ${q(area)}: ${union(ops.filter((o) => o.area === area).map((o) => o.id))};`),
    `}`,
    `export type AreaName = keyof AreaOperations;`,
    ``,
    `export interface OperationSpec {`,
    `  readonly id: OperationId;`,
    `  readonly method: HttpMethod;`,
    `  /** OpenAPI path template, e.g. /v1/tokens/{token_id}. */`,
    `  readonly path: string;`,
    `  /** The same path in router syntax, e.g. /v1/tokens/:token_id. */`,
    `  readonly routePath: string;`,
    `  readonly summary: string;`,
    `  readonly tags: readonly string[];`,
    `  readonly area: AreaName;`,
    `  /** The one ability the operation requires; null on public routes. */`,
    `  readonly ability: AbilityValue | null;`,
    `  readonly enforcement: Enforcement | null;`,
    `  readonly public: boolean;`,
    `  readonly write: boolean;`,
    `  readonly destructive: boolean;`,
    `  /** Exposed as an MCP tool (its ability is RM). */`,
    `  readonly mcp: boolean;`,
    `  readonly successStatus: number;`,
    `  readonly successBody: boolean;`,
    `  /** The success body's media type: JSON, or a file streamed from the handler's FileBody (text/csv). */`,
    `  readonly successMedia: ${union([...SUCCESS_MEDIA])} | null;`,
    `  readonly pathParams: readonly string[];`,
    `  readonly queryParams: readonly string[];`,
    `  readonly body: "required" | "optional" | null;`,
    `  readonly pagination: { readonly defaultPerPage: number; readonly maxPerPage: number; readonly sortBy: readonly string[]; readonly defaultSortDirection: "asc" | "desc" } | null;`,
    `}`,
    ``,
    `export const operationTable = {`,
    ...ops.map(tableRow),
    `} as const satisfies Record<OperationId, OperationSpec>;`,
    ``,
    `export const operationList: readonly OperationSpec[] = Object.values(operationTable);`,
    ``,
    `/** T with the keys K present (they have defaults or are required, so validation fills them). */`,
    `type WithDefaults<T, K extends PropertyKey> = T & { [P in K & keyof T]-?: Exclude<T[P], undefined> };`,
    ``,
    `export interface OperationIO {`,
    ...ops.map((op) => ioType(doc, op)),
    `}`,
    ``,
    `/** What a handler receives: validated (and, for path and query, type-coerced) input. */`,
    `export interface Input<Id extends OperationId> {`,
    `  path: OperationIO[Id]["path"];`,
    `  query: OperationIO[Id]["query"];`,
    `  body: OperationIO[Id]["body"];`,
    `}`,
    ``,
    `/**`,
    ` * What a handler answers for an operation whose success body is a file (text/csv): its chunks,`,
    ` * sent as they come (the reading happens while the client downloads), and the download's name.`,
    ` */`,
    `export interface FileBody {`,
    `  readonly filename: string;`,
    `  readonly chunks: AsyncIterable<string>;`,
    `}`,
    ``,
    `/** The success response body (void when the success status has no body; a FileBody for a file). */`,
    `export type Output<Id extends OperationId> = OperationIO[Id]["output"];`,
    ``,
    `/** One handler per operation. Ctx is the server's operation context. */`,
    `export type Handlers<Ctx> = { [Id in OperationId]: (input: Input<Id>, ctx: Ctx) => Promise<Output<Id>> };`,
    ``,
    `/** The handlers one area's module provides: exactly its operations (tsc refuses others). */`,
    `export type AreaHandlers<Ctx, Area extends AreaName> = Pick<Handlers<Ctx>, AreaOperations[Area]>;`,
    ``,
  ].join("\n");
  return codeFile("operations.ts", "operations.ts", "generated/openapi.json", body);
}
