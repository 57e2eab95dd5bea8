// The webhook event catalog an agent reads before subscribing an endpoint. Event payloads are
// described in the bundled OpenAPI document's `webhooks` section as each event ships; the names
// below are the ones the service description announces, kept here (the one hand list) until the
// webhooks section covers them all. An event present in both appears once, with its schema.
import { readGeneratedJson } from "../../../repository-files.ts";

interface KnownEvent {
  name: string;
  scope: "project" | "team";
  emitted_when: string;
  required_ability?: string;
}

/** Events the service description names, with when they fire (its Emission table). */
const ANNOUNCED_EVENTS: readonly KnownEvent[] = [
  { name: "subscription.created", scope: "project", emitted_when: "A subscription starts (for example when an access code is redeemed)." },
  { name: "subscription.cancelled", scope: "project", emitted_when: "A subscription is cancelled." },
  { name: "subscription.expired", scope: "project", emitted_when: "A subscription runs out." },
  { name: "team.member.invited", scope: "team", emitted_when: "A team invitation is sent." },
  { name: "team.member.joined", scope: "team", emitted_when: "An invitation is accepted." },
  { name: "team.member.removed", scope: "team", emitted_when: "A team member is removed." },
  { name: "team.member.role_changed", scope: "team", emitted_when: "A team member's role changes." },
  { name: "creator_task.completed", scope: "project", emitted_when: "A creator task is completed (then member.resource_added follows)." },
  { name: "member.resource_added", scope: "project", emitted_when: "A member is granted a manual resource, after its creator task completes." },
  {
    name: "billing.*",
    scope: "team",
    emitted_when: "The team's own billing changes (team-scoped, project_id is null).",
    required_ability: "billing:read",
  },
];

type Json = Record<string, any>;

export function webhookEventCatalog(baseUrl: string): Json {
  const openapi = readGeneratedJson<Json>("openapi.json");
  const specified = Object.entries<Json>(openapi.webhooks ?? {}).map(([name, item]) => {
    const operation = (item.post ?? Object.values(item)[0] ?? {}) as Json;
    return {
      name,
      summary: operation.summary ?? null,
      payload_schema: `${baseUrl}/openapi.json#/webhooks/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`,
    };
  });
  const specifiedNames = new Set(specified.map((e) => e.name));
  const events = [
    ...specified.map((e) => ({ ...e, ...ANNOUNCED_EVENTS.find((k) => k.name === e.name) })),
    ...ANNOUNCED_EVENTS.filter((k) => !specifiedNames.has(k.name)).map((k) => ({ ...k, payload_schema: null })),
  ].sort((a, b) => (a.name < b.name ? -1 : 1));
  return {
    note:
      "Payload (data) shapes are published in the OpenAPI document's webhooks section as each event is delivered; " +
      "payload_schema is null where no shape is published yet. A payment failure is payment.failed; the event for a member ban exists but is not named yet.",
    envelope: {
      id: "evt_ followed by a 26-character ULID, unique per delivery; use it to de-duplicate",
      type: "the event name",
      created_at: "ISO 8601 server time of the event",
      api_version: "date-shaped version that locks the event shape",
      project_id: "the project's id, or null for team-scoped events",
      data: "event-specific payload",
    },
    headers: {
      "SB-Signature": "t=<unix seconds>,v1=<hex HMAC-SHA256 of `${t}.${raw body}` keyed with the endpoint secret>",
      "SB-Event-Id": "the envelope id without evt_",
      "SB-Event-Name": "the event name",
    },
    receiving:
      "Verify SB-Signature with a constant-time comparison, reject when |now - t| > 300 seconds, de-duplicate on the event id for at least 24 hours, " +
      "and accept out-of-order arrival. Answer 2xx; anything else is retried (10 s, 30 s, 2 min, 10 min, 1 h, 6 h, 24 h, 72 h; the eighth retry's failure is dead).",
    events,
  };
}
