// The reference's code samples (generated/sdk-samples.json, served as x-codeSamples): one per
// operation, each a program that compiles against the SDK's types as a strict consumer's project
// would compile it, and served addressed to the deployment.
import assert from "node:assert/strict";
import type { SdkSample } from "../../codegen/sdk-samples.ts";
import { readGeneratedJson } from "../../src/repository-files.ts";
import { sdkSample, servedOpenApi } from "../../src/apps/api/public-documents.ts";
import { developersPage } from "../../src/apps/site/marketing/developers-page.ts";
import { snippetErrors } from "./typecheck-snippets.ts";

type Json = Record<string, any>;

const { samples } = readGeneratedJson<{ samples: Record<string, SdkSample> }>("sdk-samples.json");
const operationIds = Object.values<Json>(readGeneratedJson<Json>("openapi.json").paths).flatMap((item) =>
  Object.values<Json>(item)
    .map((op) => op?.operationId as string | undefined)
    .filter((id): id is string => !!id),
);

/** Stricter than strict, as issue 35's consumer compiles (exactOptionalPropertyTypes) and more. */
const CONSUMER = { exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, noImplicitOverride: true };

describe("SDK code samples", () => {
  it("has one sample per operation, calling its resource method", () => {
    assert.deepEqual(Object.keys(samples).sort(), [...operationIds].sort());
    for (const [id, sample] of Object.entries(samples)) {
      assert.ok(sample.source.includes(`${sample.call}(`), `${id}: the source calls ${sample.call}`);
      for (const [name, value] of Object.entries(sample.ids))
        assert.ok(sample.source.includes(`const ${name} = ${JSON.stringify(value)};`), `${id}: ${name}`);
    }
  });

  it("compiles every sample against the SDK's types in strict mode (errors name the operation)", function () {
    this.timeout(60_000);
    const ids = Object.keys(samples);
    assert.deepEqual(
      snippetErrors(
        ids.map((id) => samples[id]!.source),
        { names: ids, stricter: CONSUMER },
      ),
      [],
    );
  });

  it("the check bites: a misspelled body field, a missing path id and an unknown method fail to compile", function () {
    this.timeout(60_000);
    const plan = samples.create_plan!.source;
    const broken = [
      plan.replace("billing_cycle:", "billing_cylce:"),
      plan.replace("sb.plans.create(projectId, ", "sb.plans.create("),
      plan.replace("sb.plans.create(", "sb.plans.make("),
    ];
    for (const code of broken) assert.notEqual(code, plan);
    const expected = {
      typo: /'billing_cylce' does not exist/,
      "no-path-id": /Expected \d(-\d)? arguments, but got 1/,
      "no-method": /Property 'make' does not exist/,
    };
    const names = Object.keys(expected);
    const errors = snippetErrors(broken, { names, stricter: CONSUMER });
    for (const [name, message] of Object.entries(expected))
      assert.ok(
        errors.some((e) => e.startsWith(`test/sdk/${name}.ts:`) && message.test(e)),
        `${name} compiled: ${errors.join("\n")}`,
      );
  });

  it("is served on every operation of /openapi.json as Scalar's x-codeSamples, addressed to the deployment's BASE_URL", () => {
    const doc = servedOpenApi("https://api.subbridge.example");
    let served = 0;
    for (const item of Object.values<Json>(doc.paths as Json))
      for (const op of Object.values<Json>(item)) {
        if (!op?.operationId) continue;
        served++;
        const [sample, ...more] = op["x-codeSamples"] as { lang: string; label: string; source: string }[];
        assert.equal(more.length, 0, op.operationId);
        assert.equal(sample!.lang, "typescript");
        assert.equal(sample!.label, "@subbridge/sdk");
        assert.ok(sample!.source.includes(`baseUrl: "https://api.subbridge.example"`), op.operationId);
        assert.ok(!sample!.source.includes("{base_url}"), op.operationId);
      }
    assert.equal(served, operationIds.length);
    // The contract document itself stays free of them.
    assert.ok(!JSON.stringify(readGeneratedJson("openapi.json")).includes("x-codeSamples"));
  });

  it("the developers page shows create_plan's sample as the reference serves it, addressed to the deployment", () => {
    const a = {
      siteUrl: "https://s.example",
      baseUrl: "https://api.s.example",
      mcpUrl: "https://mcp.s.example",
      authUrl: "https://auth.s.example",
      docsUrl: "https://docs.s.example",
    };
    const sample = sdkSample("create_plan", a.baseUrl)!;
    assert.ok(sample.includes("sb.plans.create(") && sample.includes(`baseUrl: "${a.baseUrl}"`), sample);
    assert.ok(developersPage(a).markdown.includes("```ts\n" + sample + "```"));
  });
});
