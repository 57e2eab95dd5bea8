// A field with a default may be left out of a request but is always in a response: the generated
// types say so (openapi-typescript's defaultNonNullable alone would make it required in both).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../codegen/sources.ts";
import { requestOnlySchemas } from "../../codegen/types.ts";

const doc = JSON.parse(readFileSync(join(ROOT, "generated/openapi.json"), "utf8"));
const types = readFileSync(join(ROOT, "generated/openapi.d.ts"), "utf8");

/** The property lines of one component schema in openapi.d.ts. */
function schemaBody(name: string): string {
  const start = types.indexOf(`\n        ${name}: {\n`);
  assert.ok(start >= 0, `schema ${name} is in openapi.d.ts`);
  return types.slice(start, types.indexOf("\n        };\n", start));
}

describe("defaulted fields in the generated types", () => {
  it("are optional in request schemas and present in responses", () => {
    assert.match(schemaBody("PlanCreate"), /\n\s+trial_days\?: number;/);
    assert.match(schemaBody("PlanCreate"), /\n\s+billing_cycle_count\?: number;/);
    assert.match(schemaBody("ResourceCreate"), /\n\s+early_admission_hold\?: boolean;/);
    assert.match(schemaBody("Plan"), /\n\s+trial_days: number;/);
  });

  it("leaves no defaulted field required in any request-only schema", () => {
    const requestOnly = requestOnlySchemas(doc);
    assert.ok(requestOnly.has("PlanCreate") && !requestOnly.has("Plan"));
    for (const name of requestOnly) {
      const schema = doc.components.schemas[name];
      for (const [field, property] of Object.entries<Record<string, unknown>>(schema.properties ?? {})) {
        if (!("default" in property) || (schema.required ?? []).includes(field)) continue;
        assert.doesNotMatch(schemaBody(name), new RegExp(`\\n\\s+${field}: `), `${name}.${field} has a default: optional in requests`);
      }
    }
  });
});
