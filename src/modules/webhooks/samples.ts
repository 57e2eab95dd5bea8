// The events an endpoint may subscribe to and their sample payloads, both read from the bundled
// OpenAPI document's webhooks section (each area describes its own events there, with an example
// envelope). A subscription is an event name, a group (plan.*, team.member.*, team.*) or billing.*.
import type { components } from "../../../generated/openapi.d.ts";
import { readGeneratedJson } from "../../repository-files.ts";

export type WebhookEventFilter = components["schemas"]["WebhookEventFilter"];
/** An envelope as the spec describes it (data: any object). */
type EventEnvelope = components["schemas"]["EventEnvelope"];

/** Subscribing to these needs the ability named. */
export const FILTER_ABILITIES: Readonly<Record<string, string>> = { "billing.*": "billing:read" };

/** The ability subscribing to `filter` needs: billing:read for billing.* and for each billing event by name. */
export const filterAbility = (filter: string): string | undefined =>
  FILTER_ABILITIES[filter] ?? (filter.startsWith("billing.") ? FILTER_ABILITIES["billing.*"] : undefined);

type Json = Record<string, any>;

let samples: EventEnvelope[] | null = null;

/** One example envelope per event of the webhooks section, its type set to the event's name, by type. */
export function eventSamples(): readonly EventEnvelope[] {
  samples ??= Object.entries<Json>(readGeneratedJson<Json>("openapi.json").webhooks ?? {})
    .map(([type, item]) => {
      const media = item.post?.requestBody?.content?.["application/json"] ?? {};
      const example = (media.example ?? Object.values<Json>(media.examples ?? {})[0]?.value) as EventEnvelope;
      return { ...example, type };
    })
    .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  return samples;
}

/** Whether an event of `type` is covered by the subscription `filter`. */
export function filterCovers(filter: string, type: string): boolean {
  return filter.endsWith(".*") ? type.startsWith(filter.slice(0, -1)) : filter === type;
}

/** The samples `filter` covers (every sample without one). */
export function samplesFor(filter: string | undefined): readonly EventEnvelope[] {
  return filter === undefined ? eventSamples() : eventSamples().filter((s) => filterCovers(filter, s.type));
}
