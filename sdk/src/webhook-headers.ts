// Reading a request header by name from what receivers have at hand: a Fetch Headers object or a
// plain object such as Node's req.headers (any letter case, repeated values as arrays).

/** A Fetch Headers object, or a plain object such as Node's req.headers (any letter case). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** The header's value (repeated lines joined with ", " as HTTP combines them), or null. */
export function headerValue(headers: WebhookHeaders, name: string): string | null {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name);
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return Array.isArray(value) ? value.join(", ") : value;
  }
  return null;
}
