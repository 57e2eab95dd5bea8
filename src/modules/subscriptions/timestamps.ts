// How the commerce areas show a stored timestamp: ISO 8601 in UTC, null stays null.
export function iso(d: Date | string): string;
export function iso(d: Date | string | null): string | null;
export function iso(d: Date | string | null): string | null {
  return d === null ? null : new Date(d).toISOString();
}
