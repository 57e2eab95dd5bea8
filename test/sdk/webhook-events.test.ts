// The SDK's webhook event union against the spec it is generated from: the same event names as the
// webhooks section, and each sample payload (the spec's example as GET /v1/webhook-events serves
// it) valid as its member, both for the JSON Schema (ajv) and for the TypeScript type (the compiler
// run on the samples, with a mismatched one as the control that shows it would object).
import assert from "node:assert/strict";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { webhookEventSchemas } from "../../codegen/webhook-events.ts";
import { eventSamples } from "../../src/modules/webhooks/samples.ts";
import { signatureHeader } from "../../src/modules/webhooks/signature.ts";
import { isWebhookEventType, verifyWebhook, WEBHOOK_EVENT_TYPES } from "../../sdk/src/webhooks.ts";
import { snippetErrors } from "./typecheck-snippets.ts";
import { openapi } from "../helpers/http.ts";

const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: true });
(addFormats as unknown as typeof addFormats.default)(ajv);
ajv.addSchema({ $id: "openapi.json", components: openapi.components });

/** The member a sample must match: the schema the union takes the event's type from, with the literal name. */
const memberValidators = new Map(
  webhookEventSchemas(openapi).map(({ type, schema }) => [
    type,
    ajv.compile({ allOf: [{ $ref: `openapi.json#/components/schemas/${schema}` }, { properties: { type: { const: type } } }] }),
  ]),
);

const IMPORT = `import type { WebhookEventOf } from "@subbridge/sdk/webhooks";`;

describe("sdk webhook events (generated from the spec)", () => {
  it("WEBHOOK_EVENT_TYPES lists exactly the webhooks section's events, sorted", () => {
    const names = Object.keys(openapi.webhooks).sort();
    assert.ok(names.length > 50, `only ${names.length} events in the spec`);
    assert.deepEqual([...WEBHOOK_EVENT_TYPES], names);
    assert.deepEqual(
      eventSamples().map((sample) => sample.type),
      names,
    );
  });

  it("every sample payload validates as its member of the union and verifies through the SDK typed by its name", async () => {
    const secret = "whsec_samples";
    const at = new Date();
    for (const sample of eventSamples()) {
      const validate = memberValidators.get(sample.type);
      assert.ok(validate, `no member for ${sample.type}`);
      assert.ok(validate(sample), `${sample.type}: ${ajv.errorsText(validate.errors)}`);
      // The control: the same payload named as an event of another schema does not validate.
      const other = WEBHOOK_EVENT_TYPES.find((type) => !type.startsWith(sample.type.split(".")[0]!))!;
      assert.equal(memberValidators.get(other)!({ ...sample, type: other }), false, `${sample.type}'s sample also passes as ${other}`);

      const body = JSON.stringify(sample);
      const event = await verifyWebhook(body, { "SB-Signature": signatureHeader(secret, body, at), "SB-Event-Name": sample.type }, secret);
      assert.equal(event.type, sample.type);
      assert.ok(isWebhookEventType(event.type));
    }
  });

  it("every sample payload typechecks as WebhookEventOf<its name>, and a mismatched one does not", () => {
    const samples = eventSamples();
    const members = samples.map(
      (sample, i) => `export const sample${i}: WebhookEventOf<${JSON.stringify(sample.type)}> = ${JSON.stringify(sample)};`,
    );
    assert.deepEqual(snippetErrors([[IMPORT, ...members].join("\n")]), []);

    const coupon = samples.find((sample) => sample.type === "coupon.created")!;
    const wrong = { ...coupon, type: "subscription.created" };
    const errors = snippetErrors([`${IMPORT}\nexport const wrong: WebhookEventOf<"subscription.created"> = ${JSON.stringify(wrong)};`]);
    assert.ok(
      errors.some((message) => message.includes("subscription")),
      `the compiler accepted a coupon's data as a subscription event:\n${errors.join("\n")}`,
    );
  });
});
