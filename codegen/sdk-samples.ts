// generated/sdk-samples.json: for every operation, a short TypeScript program calling it through the
// SDK's resource method (`sb.plans.create(projectId, {...})`), with the spec's own example ids and
// request bodies. The API host serves them as Scalar's x-codeSamples on each operation of its
// OpenAPI document; the developers page shows one; a test typechecks them all and runs a chain.
import { format } from "prettier";
import type { OperationModel, ParameterModel } from "./operation-model.ts";
import { deref } from "./refs.ts";
import { jsonFile, type GeneratedFile } from "./output.ts";
import { camel, sdkNames } from "./sdk-names.ts";

type Json = Record<string, any>;

/** Stands for the deployment's API address in a sample's source; the server puts its BASE_URL there. */
export const SAMPLE_BASE_URL = "{base_url}";

export interface SdkSample {
  /** The resource method the sample calls: `sb.plans.create`. */
  call: string;
  /** The const the sample keeps the answer's `data` in (`plan`), or null when it keeps none. */
  result: string | null;
  /** The ids the sample names, by the const that holds each (`projectId`), taken from the spec's examples. */
  ids: Record<string, string>;
  /** The whole program, formatted; SAMPLE_BASE_URL in place of the API's address. */
  source: string;
}

const lowerFirst = (name: string) => name.charAt(0).toLowerCase() + name.slice(1);

function plural(name: string): string {
  if (name.endsWith("s")) return name;
  if (/[^aeiou]y$/.test(name)) return `${name.slice(0, -1)}ies`;
  return `${name}s`;
}

/** A JSON value as a TypeScript literal (identifier keys unquoted); prettier lays it out. */
function literal(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(literal).join(", ")}]`;
  if (value && typeof value === "object")
    return `{ ${Object.entries(value)
      .map(([k, v]) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${literal(v)}`)
      .join(", ")} }`;
  return JSON.stringify(value);
}

/** The first example of a media type or parameter: `example`, else the first of `examples`. */
function firstExample(node: Json | undefined): unknown {
  if (!node) return undefined;
  if (node.example !== undefined) return node.example;
  const first = Object.values<Json>(node.examples ?? {})[0];
  return first?.value;
}

function successExample(doc: Json, op: Json): Json | undefined {
  const [, response] = Object.entries<Json>(op.responses ?? {}).find(([status]) => /^2\d\d$/.test(status)) ?? [];
  return firstExample(deref(doc, response ?? {}).content?.["application/json"]) as Json | undefined;
}

/** A schema's properties, through $ref and allOf. */
function propertiesOf(doc: Json, schema: Json | undefined): Json {
  const s = deref(doc, schema ?? {});
  return Object.assign({}, ...(s.allOf ?? []).map((part: Json) => propertiesOf(doc, part)), s.properties ?? {});
}

const isIdSchema = (doc: Json, schema: Json) => {
  const ref: string | undefined = schema.$ref;
  return ref === "#/components/schemas/Uuid" || ref === "#/components/schemas/TokenId" || deref(doc, schema).format === "uuid";
};

/** An example record's id: `id`, else its first `*_id` (a roster row's `user_id`). */
function idOf(record: unknown): string | undefined {
  if (!record || typeof record !== "object" || Array.isArray(record)) return undefined;
  const r = record as Json;
  if (typeof r.id === "string") return r.id;
  const key = Object.keys(r).find((k) => k.endsWith("_id") && typeof r[k] === "string");
  return key ? r[key] : undefined;
}

/**
 * The example value of path parameter `name` of the operation at `path`: the id in the example of
 * the GET of `path` up to that parameter (`/v1/projects/{project}` for `project`), else of the first
 * row of the list above it (identities and creator tasks have no GET of their own), else the
 * parameter's own field in that example (a connector's key).
 */
function pathExample(doc: Json, path: string, name: string, isId: boolean): string | undefined {
  const upTo = path.slice(0, path.indexOf(`{${name}}`) + name.length + 2);
  const item = doc.paths[upTo]?.get ? successExample(doc, doc.paths[upTo].get)?.data : undefined;
  if (!isId && typeof item?.[name] === "string") return item[name];
  const collection = upTo.slice(0, upTo.lastIndexOf("/"));
  const list = doc.paths[collection]?.get ? successExample(doc, doc.paths[collection].get)?.data : undefined;
  return idOf(item) ?? (Array.isArray(list) ? idOf(list[0]) : undefined);
}

/** A path parameter's own example (path or operation level), for an id no GET or list shows. */
function parameterExample(doc: Json, path: string, op: Json, name: string): string | undefined {
  const declared = [...(doc.paths[path].parameters ?? []), ...(op.parameters ?? [])].find((p: Json) => p.name === name && p.in === "path");
  return typeof declared?.example === "string" ? declared.example : undefined;
}

/** A query value for a required parameter the spec gives no example of: from the answer's example (its meta echoes the query). */
function queryExample(doc: Json, op: Json, p: ParameterModel): unknown {
  const schema = deref(doc, p.schema);
  const answer = successExample(doc, op);
  return answer?.meta?.[p.name] ?? schema.examples?.[0] ?? schema.enum?.[0];
}

/**
 * The answer's `data` schema: its name, whether it is a list, the fields worth printing of a
 * record, and the answer's other fields beside it (a new token's or endpoint's secret, shown once).
 */
function dataShape(doc: Json, op: OperationModel): { name: string | null; list: boolean; print: string[]; beside: string[] } | null {
  if (!op.responseSchema) return null;
  const answer = propertiesOf(doc, op.responseSchema);
  const data = answer.data;
  if (!data) return null;
  const resolved = deref(doc, data);
  const list = resolved.type === "array";
  const record: Json = list ? resolved.items : data;
  const ref: string | undefined = record?.$ref;
  const name = ref
    ? lowerFirst(
        ref
          .split("/")
          .pop()!
          .replace(/Detail$/, ""),
      )
    : null;
  const fields = propertiesOf(doc, record);
  const label = ["name", "title", "email", "type", "status", "url"].find((f) => f in fields);
  const print = ["id", label].filter((f): f is string => !!f && f in fields);
  const beside = Object.keys(answer).filter((k) => !["data", "links", "meta"].includes(k));
  return { name, list, print, beside };
}

function sample(doc: Json, model: OperationModel, call: string): Omit<SdkSample, "source"> & { code: string } {
  const op = doc.paths[model.path][model.method.toLowerCase()];
  const ids: Record<string, string> = {};
  const args: string[] = [];
  for (const p of model.pathParams) {
    const isId = isIdSchema(doc, p.schema);
    const value = pathExample(doc, model.path, p.name, isId) ?? parameterExample(doc, model.path, op, p.name);
    if (!value) throw new Error(`sdk samples: ${model.id}: no example for path parameter ${p.name}; give its GET or list an example`);
    if (!isId) {
      args.push(JSON.stringify(value));
      continue;
    }
    const constName = camel(p.name.endsWith("_id") ? p.name : `${p.name}_id`);
    ids[constName] = value;
    args.push(constName);
  }
  if (model.body) {
    const example = firstExample(deref(doc, op.requestBody).content["application/json"]);
    if (example === undefined) throw new Error(`sdk samples: ${model.id}: its request body has no example`);
    // What a caller must or typically sets: the example without the fields the server defaults.
    const properties = propertiesOf(doc, model.body.schema);
    const kept = Object.fromEntries(Object.entries(example as Json).filter(([k]) => deref(doc, properties[k] ?? {}).default === undefined));
    args.push(literal(Object.keys(kept).length ? kept : example));
  } else if (model.pagination) {
    args.push(literal({ per_page: model.pagination.maxPerPage }));
  } else {
    const raw = (op.parameters ?? []).map((p: Json) => deref(doc, p));
    const query = Object.fromEntries(
      model.queryParams
        .filter((p) => p.required)
        .map((p) => [p.name, raw.find((r: Json) => r.name === p.name && r.in === "query")?.example ?? queryExample(doc, op, p)]),
    );
    if (Object.keys(query).length) args.push(literal(query));
  }

  const invocation = `${call}(${args.join(", ")})`;
  const shape = dataShape(doc, model);
  const printed = (v: string, fields: string[]) => `console.log(${fields.length ? fields.map((f) => `${v}.${f}`).join(", ") : v});`;
  let code: string;
  let result: string | null = null;
  if (model.pagination) {
    // The list as a value first: awaiting it answers one page, `for await` walks every item.
    const item = shape?.name ?? "item";
    code = `const ${plural(item)} = ${invocation};\nfor await (const ${item} of ${plural(item)}) {\n${printed(item, shape?.print ?? [])}\n}`;
  } else if (!model.responseSchema) {
    code = `await ${invocation};`;
  } else if (!shape) {
    code = `const answer = await ${invocation};\nconsole.log(answer);`;
  } else if (shape.list) {
    const item = shape.name ?? "item";
    result = plural(item);
    code = `const { data: ${result} } = await ${invocation};\nfor (const ${item} of ${result}) {\n${printed(item, shape.print)}\n}`;
  } else {
    result = shape.name ?? "data";
    // A field beside data named as the record (create_token's `token`, its secret) is renamed.
    const beside = shape.beside.map((k) => (camel(k) === result ? `${k}: ${camel(k)}Value` : k === camel(k) ? k : `${k}: ${camel(k)}`));
    const besideNames = shape.beside.map((k) => (camel(k) === result ? `${camel(k)}Value` : camel(k)));
    const names = [result === "data" ? "data" : `data: ${result}`, ...beside].join(", ");
    const shown = [...(shape.print.length ? shape.print.map((f) => `${result}.${f}`) : [result]), ...besideNames];
    code = `const { ${names} } = await ${invocation};\nconsole.log(${shown.join(", ")});`;
  }
  return { call, result, ids, code };
}

async function program(model: OperationModel, s: Omit<SdkSample, "source"> & { code: string }): Promise<string> {
  const client = model.isPublic
    ? `createClient({ baseUrl: ${JSON.stringify(SAMPLE_BASE_URL)} })`
    : `createClient({ baseUrl: ${JSON.stringify(SAMPLE_BASE_URL)}, token: process.env.SUBBRIDGE_TOKEN })`;
  const consts = Object.entries(s.ids).map(([name, value]) => `const ${name} = ${JSON.stringify(value)};`);
  const text = [
    `import { createClient } from "@subbridge/sdk";`,
    "",
    `const sb = ${client};`,
    ...(consts.length ? ["", ...consts] : []),
    "",
    s.code,
  ].join("\n");
  // Narrower than the repository's 150: Scalar shows the sample in a side panel.
  return format(text, { parser: "typescript", printWidth: 72, trailingComma: "all" });
}

/** Every operation's sample, by operation id. */
export async function sdkSamples(doc: Json, ops: readonly OperationModel[]): Promise<Record<string, SdkSample>> {
  const names = sdkNames(ops);
  const samples: Record<string, SdkSample> = {};
  for (const model of ops) {
    const { resource, method } = names.get(model.id)!;
    const s = sample(doc, model, `sb.${resource}.${method}`);
    samples[model.id] = { call: s.call, result: s.result, ids: s.ids, source: await program(model, s) };
  }
  return samples;
}

export async function emitSdkSamples(doc: Json, ops: readonly OperationModel[]): Promise<GeneratedFile> {
  return jsonFile("sdk-samples.json", "sdk-samples.ts", "spec/openapi", { samples: await sdkSamples(doc, ops) });
}
