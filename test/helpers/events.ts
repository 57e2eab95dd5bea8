// The events outbox as tests read it: rows of the `events` table, and a check of each envelope
// against the `webhooks` schema of its type in generated/openapi.json (what receivers are promised).
import assert from "node:assert/strict";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { createDomainContext, systemActor } from "../../src/db/tenant.ts";
import { teamEvents } from "../../src/modules/events/outbox.ts";
import { testDatabase } from "./backends.ts";
import { openapi } from "./http.ts";

const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: true });
(addFormats as unknown as typeof addFormats.default)(ajv);
ajv.addSchema({ $id: "openapi.json", components: openapi.components, webhooks: openapi.webhooks });

export interface OutboxEvent {
  id: string;
  type: string;
  created_at: string;
  api_version: string;
  project_id: string | null;
  data: Record<string, any>;
}

/** The team's events of `type` (oldest first), as the envelopes a receiver would get. */
export async function eventsOf(teamId: string, type?: string): Promise<OutboxEvent[]> {
  const { db } = await testDatabase();
  return teamEvents(createDomainContext(db, systemActor(teamId), new Date()), type ? { type } : {});
}

/** Asserts the envelope matches the webhook schema its spec declares for its type. */
export function assertValidEvent(event: OutboxEvent): void {
  assert.ok(openapi.webhooks?.[event.type], `the spec declares the webhook ${event.type}`);
  const pointer = `openapi.json#/webhooks/${event.type.replace(/~/g, "~0").replace(/\//g, "~1")}/post/requestBody/content/application~1json/schema`;
  const validate = ajv.getSchema(pointer) ?? ajv.compile({ $ref: pointer });
  assert.ok(
    validate(event),
    `${event.type} envelope does not match its schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(event).slice(0, 600)}`,
  );
  assert.match(event.id, /^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
}

/** Every key at any depth of `value` (a substring search would find "fee" inside an id's hex). */
export function keysOf(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysOf(v, into);
  else if (value !== null && typeof value === "object")
    for (const [key, inner] of Object.entries(value)) {
      into.add(key);
      keysOf(inner, into);
    }
  return into;
}

/** Asserts an event's data names no fee at any depth, nor a net that would give it away (Events, Delivery 8). */
export function assertNoFee(data: unknown, message: string): void {
  const fees = [...keysOf(data)].filter((k) => /fee|^net$/i.test(k));
  assert.deepEqual(fees, [], message);
}
