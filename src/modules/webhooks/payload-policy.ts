// What a delivery may carry (Events, Delivery 8). Events are written without secrets (a member as
// events carry it has no email), and this is the last gate before a body leaves: it removes, at any
// depth, what never goes out - payment-provider credentials, fee breakdowns (a transaction's net
// too, since amount minus net is the fee), invitation tokens,
// passkey credentials, secrets - and a subscriber's email and phone unless the endpoint's owner (the
// member who registered it) holds project-user:view on the event's project.
const NEVER_SENT = new Set([
  "secret",
  "token",
  "invitation_token",
  "token_hash",
  "credentials",
  "provider_credentials",
  "api_key",
  "fee_breakdown",
  "fee",
  "fees",
  "net",
  "passkey",
  "passkeys",
  "public_key_credential",
  "card_number",
  "cvv",
]);

/** Keys under which a subscriber (a community member) appears; in team.* events a member is a teammate. */
const SUBSCRIBER_KEYS = new Set(["member", "members", "subscriber", "subscribers", "customer"]);
const CONTACT_KEYS = new Set(["email", "phone", "phone_number"]);

function scrub(value: unknown, underSubscriber: boolean, contacts: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => scrub(v, underSubscriber, contacts));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (NEVER_SENT.has(key)) continue;
    if (underSubscriber && !contacts && CONTACT_KEYS.has(key)) continue;
    out[key] = scrub(inner, underSubscriber || SUBSCRIBER_KEYS.has(key), contacts);
  }
  return out;
}

/** The event's data as this endpoint may receive it. */
export function deliverableData(type: string, data: Record<string, unknown>, options: { subscriberContacts: boolean }): Record<string, unknown> {
  return scrub(data, false, options.subscriberContacts || type.startsWith("team.")) as Record<string, unknown>;
}
