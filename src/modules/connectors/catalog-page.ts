// One page of the connector catalog. The catalog is a few dozen cards held in memory, so sorting
// and slicing happen here rather than in SQL; the list envelope is the same as every other list.
import type { PageWindow } from "../../db/pages.ts";
import { deploymentCard, type ConnectorCard } from "./cards.ts";
import type { PlatformEndpoints } from "../../config.ts";
import type { ConnectorRegistry } from "./registry.ts";

/** created_at is the platform-wide default sort column; for a connector it is the date it joined the catalog. */
const SORT_COLUMNS: Record<string, (card: ConnectorCard) => string> = {
  created_at: (card) => card.added_at,
  added_at: (card) => card.added_at,
  name: (card) => card.name.toLowerCase(),
  key: (card) => card.key,
};

export function listConnectorCards(
  registry: ConnectorRegistry,
  platforms: PlatformEndpoints,
  window: PageWindow,
): { rows: ConnectorCard[]; total: number } {
  const column = SORT_COLUMNS[window.sortBy] ?? SORT_COLUMNS.created_at!;
  const direction = window.sortDirection === "asc" ? 1 : -1;
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  // Ties (same date, same name) always go by key, ascending, so pages never overlap.
  const sorted = [...registry.cards].sort((a, b) => direction * compare(column(a), column(b)) || compare(a.key, b.key));
  const rows = sorted.slice(window.offset, window.offset + window.limit).map((card) => deploymentCard(card, platforms));
  return { rows, total: sorted.length };
}
