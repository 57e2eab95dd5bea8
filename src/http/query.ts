// The query string, decoded strictly. Node's parser replaces a percent-encoding that is not UTF-8
// (%FF, %ED%A0%80) with U+FFFD; like a body, a query value is refused rather than repaired.
export interface ParsedQuery {
  /** Each key's value, or values when it is repeated (as Koa's ctx.query gives them). */
  query: Record<string, string | string[]>;
  /** Keys with a value whose percent-encoding is not valid UTF-8. */
  undecodable: string[];
}

function decode(component: string): string | null {
  try {
    return decodeURIComponent(component.replace(/\+/g, " "));
  } catch {
    return null;
  }
}

export function parseQuery(querystring: string): ParsedQuery {
  const query = Object.create(null) as Record<string, string | string[]>;
  const undecodable: string[] = [];
  for (const pair of querystring.split("&")) {
    if (!pair) continue;
    const at = pair.indexOf("=");
    const key = decode(at < 0 ? pair : pair.slice(0, at));
    if (key === null) continue; // a key that names nothing is ignored, as every unknown key is
    const value = decode(at < 0 ? "" : pair.slice(at + 1));
    if (value === null) {
      if (!undecodable.includes(key)) undecodable.push(key);
      continue;
    }
    const previous = query[key];
    query[key] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  return { query, undecodable };
}
