// Typed webhook events. generated/webhook-events.ts maps each event name of the spec's webhooks
// section to the schema of its body (openapi-typescript's component types); here that map becomes
// a union discriminated by `type`, so `event.type === "subscription.created"` narrows `event.data`.
// The union is closed on purpose: a catch-all member with `type: string` would stop TypeScript from
// narrowing on the name. An event newer than this SDK still verifies (nothing is rejected for its
// type); a receiver keeps a default branch, checks isWebhookEventType, or reads it as UnknownWebhookEvent.
import { WEBHOOK_EVENT_TYPES, type WebhookEventSchemas } from "./generated/webhook-events.js";

export { WEBHOOK_EVENT_TYPES, type WebhookEventSchemas };

/** The name of every event this SDK version knows, e.g. "subscription.created". */
export type WebhookEventType = keyof WebhookEventSchemas;

/** One object type from an intersection, so editors show the envelope's fields in one place. */
type Flat<T> = { [K in keyof T]: T[K] } & {};

/** The event named T (or, for a union of names, the union of those events), its `type` the literal name. */
export type WebhookEventOf<T extends WebhookEventType> = T extends WebhookEventType
  ? Flat<Omit<WebhookEventSchemas[T], "type"> & { type: T }>
  : never;

/** The envelope every delivery carries (service description, Events > Envelope), data typed as Data. */
export interface WebhookEnvelope<Data = Record<string, unknown>> {
  /** evt_ + ULID, unique per event (a retry repeats it): de-duplicate on it. */
  id: string;
  /** The event name, e.g. team.member.joined. */
  type: string;
  created_at: string;
  /** Date-shaped version that locks the event's shape. */
  api_version: string;
  /** null for team-scoped events. */
  project_id: string | null;
  data: Data;
}

/** An event whose type this SDK version does not know (the API added it later): its data is untyped. */
export type UnknownWebhookEvent = WebhookEnvelope<Record<string, unknown>>;

/**
 * A verified webhook event. Without a type argument: the union of every event this SDK version
 * knows, discriminated by `type`. With one (`WebhookEvent<MyData>`, the form earlier releases had):
 * the plain envelope, `type: string` and `data: MyData`.
 */
export type WebhookEvent<Data = never> = [Data] extends [never] ? WebhookEventOf<WebhookEventType> : WebhookEnvelope<Data>;

const KNOWN: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);

/** Whether `type` names an event this SDK version knows (and so types). */
export function isWebhookEventType(type: string): type is WebhookEventType {
  return KNOWN.has(type);
}
