// What the MCP endpoint works out from a value a client repeats on every request (its _meta, its
// toolset header, its Host and Origin): worked out the first time a value is seen and kept, at
// most `limit` values (all forgotten when full, so a client sending ever-new values costs no
// memory). A computation that throws is not kept: the next request with that value throws again.
export function perValue<T>(limit = 256): (value: string, compute: () => T) => T {
  const known = new Map<string, T>();
  return (value, compute) => {
    if (known.has(value)) return known.get(value) as T;
    const result = compute();
    if (known.size >= limit) known.clear();
    known.set(value, result);
    return result;
  };
}
