// The generated resource table against the operation table: every operation is exactly one
// resource method, with its method, path, path parameters in order, body or query, and paging;
// the client has each as a function; and an editor's hover on a method shows the operation's
// summary, description, ability and reference link, in the sources and in emitted declarations.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { operationList } from "../../generated/operations.ts";
import { RESOURCE_OPERATIONS } from "../../generated/sdk-resources.ts";
import { sdkName } from "../../codegen/sdk-names.ts";
import { createClient } from "../../sdk/src/index.ts";
import { ROOT } from "../connector/manifest-files.ts";

const rows: Record<string, (typeof RESOURCE_OPERATIONS)[keyof typeof RESOURCE_OPERATIONS]> = RESOURCE_OPERATIONS;

describe("sdk resource table", () => {
  it("has every operation once, as the operation table describes it", () => {
    assert.deepEqual(Object.keys(rows).sort(), operationList.map((op) => op.id).sort());
    const names = new Set<string>();
    for (const op of operationList) {
      const row = rows[op.id]!;
      const name = `${row.resource}.${row.method}`;
      assert.ok(!names.has(name), `${name} twice`);
      names.add(name);
      assert.deepEqual({ resource: row.resource, method: row.method }, sdkName(op.id), op.id);
      assert.equal(row.httpMethod, op.method, op.id);
      assert.equal(row.path, op.path, op.id);
      assert.deepEqual(row.pathParams, op.pathParams, `${op.id}: path parameters in path order`);
      assert.deepEqual(
        row.pathParams,
        [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]),
        op.id,
      );
      assert.equal(row.input, op.body ? "body" : op.queryParams.length ? "query" : null, op.id);
      assert.equal(row.paged, op.pagination !== null, op.id);
      assert.equal(row.write, op.write, op.id);
    }
  });

  it("gives the client every method as a function, and nothing else on a resource", () => {
    const client = createClient({ baseUrl: "https://api.test" }) as unknown as Record<string, Record<string, unknown>>;
    for (const row of Object.values(rows)) assert.equal(typeof client[row.resource]?.[row.method], "function", `${row.resource}.${row.method}`);
    const resources = new Set(Object.values(rows).map((row) => row.resource));
    const methods = [...resources].flatMap((resource) => Object.keys(client[resource]!).map((method) => `${resource}.${method}`));
    assert.equal(methods.length, operationList.length);
  });

  it("shows the operation's docs on hover, in the sources and in declarations emitted from them", () => {
    const file = join(ROOT, "test/sdk/hover.ts");
    const source = `import { createClient } from "@subbridge/sdk";\nconst sb = createClient({ baseUrl: "x" });\nvoid sb.plans.create;\n`;
    const options: ts.CompilerOptions = {
      strict: true,
      noEmit: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      baseUrl: ROOT,
      paths: { "@subbridge/sdk": ["sdk/src/index.ts"] },
    };
    const service = ts.createLanguageService({
      getCompilationSettings: () => options,
      getScriptFileNames: () => [file],
      getScriptVersion: () => "1",
      getScriptSnapshot: (name) => {
        const text = name === file ? source : ts.sys.readFile(name);
        return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
      },
      getCurrentDirectory: () => ROOT,
      getDefaultLibFileName: ts.getDefaultLibFilePath,
      fileExists: (name) => name === file || ts.sys.fileExists(name),
      readFile: (name) => (name === file ? source : ts.sys.readFile(name)),
    });
    const info = service.getQuickInfoAtPosition(file, source.lastIndexOf("create") + 1);
    assert.ok(info, "no hover");
    const signature = ts.displayPartsToString(info.displayParts);
    assert.match(signature, /create\(project: string, body: PlanCreate, options\?: WriteRequestOptions\): Promise<PlanResponse>/);
    const docs = ts.displayPartsToString(info.documentation);
    assert.match(docs, /^Create a plan\n\nCreates a draft plan/);
    const tags = (info.tags ?? []).map((tag) => `@${tag.name} ${ts.displayPartsToString(tag.text)}`).join("\n");
    assert.match(tags, /@remarks Requires the `project-subscription-plan:create` ability\./);
    assert.match(tags, /@see https:\/\/docs\.subbridge\.dev\/reference#tag\/plans\/POST\/v1\/projects\/\{project\}\/plans/);
    assert.match(tags, /@param project - The project's id\./);

    // tsc's declaration emit keeps the JSDoc (what dist/generated/sdk-resources.d.ts is made of).
    const generated = readFileSync(join(ROOT, "generated/sdk-resources.ts"), "utf8");
    const { outputText } = ts.transpileDeclaration(generated, { compilerOptions: { removeComments: false } });
    const method = outputText.indexOf("    create(project: string, body: PlanCreate, options?: WriteRequestOptions): Promise<PlanResponse>;");
    assert.ok(method > 0, "no create method in the declarations");
    const doc = outputText.slice(outputText.lastIndexOf("/**", method), method);
    assert.match(
      doc,
      /Create a plan[\s\S]*@remarks Requires the `project-subscription-plan:create` ability\.[\s\S]*@see https:\/\/docs\.subbridge\.dev\/reference#tag\/plans\//,
    );
  });
});
