// Decodes Stripe's form bodies and query strings: stripe-node sends nested parameters in bracket
// notation (`line_items[0][price]=price_1`, `metadata[plan]=gold`, `expand[0]=customer`), which
// this turns back into objects and arrays as the API reads them.
export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type FormParams = { [key: string]: FormValue };

/** The key's path: `a[b][0]` → ["a", "b", "0"]; null when the brackets do not pair up. */
function pathOf(key: string): string[] | null {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!match) return null;
  return [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!)];
}

/** Objects whose keys are all indexes (or `[]` appends) become arrays, in index order. */
function arrays(value: FormValue): FormValue {
  if (typeof value === "string" || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const converted = Object.fromEntries(keys.map((k) => [k, arrays(value[k]!)]));
  if (keys.length > 0 && keys.every((k) => /^[0-9]+$/.test(k)))
    return keys
      .map(Number)
      .sort((a, b) => a - b)
      .map((k) => converted[String(k)]!);
  return converted;
}

/** Decodes `a[b][0]=x&…`; a key that cannot be read, or one that is both a value and a hash, is reported by name. */
export function decodeForm(raw: string): { params: FormParams } | { invalid: string } {
  const root: { [key: string]: FormValue } = {};
  let appended = 0;
  for (const [key, value] of new URLSearchParams(raw)) {
    const path = pathOf(key);
    if (!path) return { invalid: key };
    let node: { [key: string]: FormValue } = root;
    for (let i = 0; i < path.length; i++) {
      // `expand[]=a&expand[]=b` appends, as qs reads it.
      const segment = path[i] === "" ? `${1_000_000 + appended++}` : path[i]!;
      if (i === path.length - 1) {
        if (typeof node[segment] === "object") return { invalid: key };
        node[segment] = value;
      } else {
        const next = node[segment] ?? {};
        if (typeof next !== "object" || Array.isArray(next)) return { invalid: key };
        node[segment] = next;
        node = next;
      }
    }
  }
  return { params: arrays(root) as FormParams };
}
