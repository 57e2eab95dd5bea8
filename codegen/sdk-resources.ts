// generated/sdk-resources.ts: the SDK's resource methods (`sb.plans.create(project, body, options)`)
// as TypeScript interfaces with each operation's docs as JSDoc, and the plain table the SDK's
// runtime (sdk/src/resources.ts) builds them from. Every type is concrete per operation (an alias of
// the generated schema or operation type), so a consumer's compiler does no search over the paths.
// It imports only ./openapi.js, so the same file compiles in generated/ and in the SDK's package.
import type { OperationModel } from "./operation-model.ts";
import { codeFile, type GeneratedFile } from "./output.ts";
import { deref } from "./refs.ts";
import { camel, sdkNames, type SdkName } from "./sdk-names.ts";

type Json = Record<string, any>;

/** Where the reference lives; Scalar's anchor for an operation is #tag/<tag slug>/<METHOD><path>. */
export const REFERENCE_URL = "https://docs.subbridge.dev/reference";

const q = (s: string) => JSON.stringify(s);
const pascal = (snake: string) => camel(snake).replace(/^[a-z]/, (c) => c.toUpperCase());

/** Scalar's slug of a tag name (lower case, spaces as hyphens). */
const tagSlug = (tag: string) =>
  tag
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s+/g, "-");

export function referenceLink(op: Pick<OperationModel, "tags" | "method" | "path">): string {
  return `${REFERENCE_URL}#tag/${tagSlug(op.tags[0]!)}/${op.method}${op.path}`;
}

/** The types the generated interfaces use, written once here rather than per operation. */
const PREAMBLE = `import type { components, operations } from "./openapi.js";

/** Options of one call of a resource method (each may be undefined, for exactOptionalPropertyTypes consumers). */
export interface RequestOptions {
  /** Cancels the call (before it is sent, while it waits, or between retries); it rejects with AbortedError. */
  signal?: AbortSignal | undefined;
  /** This call's time limit per attempt in milliseconds, instead of the client's (0 or Infinity: none). */
  timeoutMs?: number | undefined;
  /** Headers added to this request. */
  headers?: Record<string, string> | undefined;
  /** Retries after the first attempt for this call, instead of the client's (0: none). */
  maxRetries?: number | undefined;
}

/** Options of one call of a write (POST, PUT, PATCH, DELETE). */
export interface WriteRequestOptions extends RequestOptions {
  /**
   * Sent as Idempotency-Key: the same key with the same body within 24 hours answers the first
   * response instead of writing again. Without it the SDK makes one per call (kept across that
   * call's retries); give your own when the same write may be sent again later, after a restart.
   */
  idempotencyKey?: string | undefined;
}

/** One page of a list: {data, links, meta}. */
export interface ListEnvelope<Item> {
  data: Item[];
  links: { first: string; last: string; prev: string | null; next: string | null };
  meta: { current_page: number; from: number | null; last_page: number; per_page: number; to: number | null; total: number };
}

/**
 * What a list method returns. Await it for the first page's envelope ({data, links, meta}), or
 * iterate it with \`for await\` for every item across pages, fetching each page as the loop reaches
 * it. The request is sent when you await or iterate it.
 */
export interface PagePromise<Page extends ListEnvelope<unknown>> extends Promise<Page>, AsyncIterable<Page["data"][number]> {
  /** Every item, from the first page on, until \`limit\` items (a positive integer): no page after that is fetched. */
  toArray(options: { limit: number }): Promise<Page["data"][number][]>;
  /** Every page's envelope, from the first page on. */
  pages(): AsyncIterableIterator<Page>;
}

/** A row of the table: how a resource method becomes a request. */
export interface ResourceOperation {
  readonly resource: string;
  readonly method: string;
  readonly httpMethod: "GET" | "PUT" | "POST" | "DELETE" | "PATCH";
  /** OpenAPI path template, e.g. /v1/projects/{project}/plans. */
  readonly path: string;
  /** The path parameters, in path order: the method's first arguments. */
  readonly pathParams: readonly string[];
  /** What the argument after them is: the JSON body, the query parameters, or nothing. */
  readonly input: "body" | "query" | null;
  /** A list: the method returns a PagePromise. */
  readonly paged: boolean;
  /** POST, PUT, PATCH or DELETE: the call carries an Idempotency-Key. */
  readonly write: boolean;
  /** The ability a token needs for it (null: any valid token, or none for a public route). */
  readonly ability: string | null;
  /** "text": the success body is a file (text/csv) and the method resolves to its text; absent: JSON. */
  readonly parseAs?: "text";
}
`;

/** The name of a $ref'd component schema, or null. */
function schemaName(schema: Json | null | undefined): string | null {
  const ref = schema?.$ref;
  return typeof ref === "string" && ref.startsWith("#/components/schemas/") ? ref.slice("#/components/schemas/".length) : null;
}

/** A JSDoc block, indented, with `*\/` in the text defused. */
function jsdoc(lines: string[], indent: string): string[] {
  const safe = lines.flatMap((line) => line.split("\n")).map((line) => line.replace(/\*\//g, "*\\/").trimEnd());
  while (safe.length && safe[safe.length - 1] === "") safe.pop();
  return [`${indent}/**`, ...safe.map((line) => (line ? `${indent} * ${line}` : `${indent} *`)), `${indent} */`];
}

interface Emitted {
  aliases: Map<string, string>;
  alias(name: string, type: string): string;
}

function aliasTable(): Emitted {
  const aliases = new Map<string, string>();
  return {
    aliases,
    alias(name, type) {
      const existing = aliases.get(name);
      if (existing !== undefined && existing !== type) throw new Error(`sdk resources: two types named ${name}`);
      aliases.set(name, type);
      return name;
    },
  };
}

/** The alias of a schema: its component's name when it has one, else `fallback` for the operation's own type. */
function named(types: Emitted, schema: Json, fallback: string, operationType: string): string {
  const name = schemaName(schema);
  return name ? types.alias(name, `components["schemas"][${q(name)}]`) : types.alias(fallback, operationType);
}

/** One method of a resource interface, with its JSDoc. */
function methodSignature(doc: Json, op: OperationModel, name: SdkName, types: Emitted): string[] {
  const o = `operations[${q(op.id)}]`;
  const params: string[] = op.pathParams.map((p) => `${camel(p.name)}: string`);
  const docs: string[] = [op.summary, "", op.description.trim(), ""];
  docs.push(
    op.ability ? `@remarks Requires the \`${op.ability}\` ability.` : "@remarks Public: no token needed.",
    `@see ${referenceLink(op)} (operation \`${op.id}\`: ${op.method} ${op.path})`,
  );
  for (const p of op.pathParams) docs.push(`@param ${camel(p.name)} - ${p.description ?? `The ${p.name}.`}`);

  if (op.body) {
    const type = named(types, op.body.schema, `${pascal(op.id)}Body`, `NonNullable<${o}["requestBody"]>["content"]["application/json"]`);
    const optional = !op.body.required || !deref(doc, op.body.schema).required?.length;
    params.push(`body${optional ? "?" : ""}: ${type}`);
    docs.push(`@param body - The request's JSON body (the API's field names).`);
  } else if (op.queryParams.length) {
    const type = types.alias(`${pascal(op.id)}Query`, `NonNullable<${o}["parameters"]["query"]>`);
    params.push(`query${op.queryParams.some((p) => p.required) ? "" : "?"}: ${type}`);
    docs.push(`@param query - The query parameters (the API's names: \`per_page\`, \`sort_by\`, ...).`);
  }
  params.push(`options?: ${op.write ? "WriteRequestOptions" : "RequestOptions"}`);
  docs.push(
    op.write
      ? "@param options - signal, timeoutMs, headers, maxRetries, idempotencyKey."
      : "@param options - signal, timeoutMs, headers, maxRetries.",
  );

  let returns: string;
  if (op.successMedia && op.successMedia !== "application/json") returns = "Promise<string>";
  else if (!op.responseSchema) returns = "Promise<void>";
  else {
    const type = named(types, op.responseSchema, `${pascal(op.id)}Response`, `${o}["responses"][${op.successStatus}]["content"]["application/json"]`);
    returns = op.pagination ? `PagePromise<${type}>` : `Promise<${type}>`;
  }
  return [...jsdoc(docs, "  "), `  ${name.method}(${params.join(", ")}): ${returns};`];
}

function inputOf(op: OperationModel): "body" | "query" | null {
  if (op.body && op.queryParams.length) throw new Error(`sdk resources: ${op.id} has both a body and query parameters`);
  return op.body ? "body" : op.queryParams.length ? "query" : null;
}

export function emitSdkResources(doc: Json, ops: OperationModel[], release: string): GeneratedFile {
  const names = sdkNames(ops);
  const types = aliasTable();
  const byResource = new Map<string, OperationModel[]>();
  for (const op of ops) {
    const { resource } = names.get(op.id)!;
    byResource.set(resource, [...(byResource.get(resource) ?? []), op]);
  }
  const resources = [...byResource.keys()].sort();
  const tagDescription = new Map<string, string>((doc.tags ?? []).map((t: Json) => [t.name, t.description ?? ""]));

  const interfaces: string[] = [];
  for (const resource of resources) {
    const members = byResource.get(resource)!.sort((a, b) => names.get(a.id)!.method.localeCompare(names.get(b.id)!.method));
    interfaces.push(`/** \`sb.${resource}\`. */`, `export interface ${pascal(resource)}Resource {`);
    for (const op of members) interfaces.push(...methodSignature(doc, op, names.get(op.id)!, types));
    interfaces.push(`}`, ``);
  }

  const client = [
    `/** The client's resources: \`sb.<resource>.<method>(...pathParams, body or query, options)\`. */`,
    `export interface SubBridgeResources {`,
  ];
  for (const resource of resources) {
    const tags = [...new Set(byResource.get(resource)!.map((op) => op.tags[0]!))];
    const about = tags.map((tag) => tagDescription.get(tag) || tag).join(" ");
    client.push(...jsdoc([about], "  "), `  readonly ${resource}: ${pascal(resource)}Resource;`);
  }
  client.push(`}`);

  const table = ops.map((op) => {
    const { resource, method } = names.get(op.id)!;
    const row: Json = {
      resource,
      method,
      httpMethod: op.method,
      path: op.path,
      pathParams: op.pathParams.map((p) => p.name),
      input: inputOf(op),
      paged: op.pagination !== null,
      write: op.write,
      ability: op.ability,
      ...(op.successMedia && op.successMedia !== "application/json" ? { parseAs: "text" } : {}),
    };
    return `  ${op.id}: ${JSON.stringify(row)},`;
  });

  const preambleNames = ["RequestOptions", "WriteRequestOptions", "ListEnvelope", "PagePromise", "ResourceOperation", "SubBridgeResources"];
  for (const name of types.aliases.keys())
    if (preambleNames.includes(name) || resources.some((r) => `${pascal(r)}Resource` === name))
      throw new Error(`sdk resources: the type ${name} clashes`);

  const body = [
    PREAMBLE,
    `/** The SDK's version (the release it was generated for): sent in its User-Agent. */`,
    `export const SDK_VERSION = ${q(release)};`,
    ``,
    `// The request and response types of the operations, by the names a hover shows.`,
    ...[...types.aliases.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, type]) => `export type ${name} = ${type};`),
    ``,
    ...interfaces,
    ...client,
    ``,
    `/** Every operation as a resource method: the runtime builds \`sb.<resource>.<method>\` from these rows. */`,
    `export const RESOURCE_OPERATIONS = {`,
    ...table,
    `} as const satisfies Record<string, ResourceOperation>;`,
  ].join("\n");
  return codeFile("sdk-resources.ts", "sdk-resources.ts", "generated/openapi.json", body);
}
