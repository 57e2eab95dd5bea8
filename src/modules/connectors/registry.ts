// The connector registry: every package under the connectors folder (CONNECTORS_DIR), loaded and
// checked once at start, plus the operator's catalog file. Any problem refuses the start with one
// ConnectorLoadError listing them all; a running server only ever holds valid packages.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadConnectorPackage, MANIFEST_FILE, type ConnectorPackage } from "./connector-package.ts";
import { readCatalogFile } from "./catalog-file.ts";
import { packageCard, upcomingCard, type ConnectorCard } from "./cards.ts";
import { ConnectorLoadError, displayPath, quoted, type PackageProblem } from "./problems.ts";

export interface ConnectorRegistry {
  /** The folder the packages were loaded from (absolute). */
  readonly dir: string;
  /** Loaded packages by key. */
  readonly packages: ReadonlyMap<string, ConnectorPackage>;
  /** Every card of the catalog (packages and announced connectors), in key order. */
  readonly cards: readonly ConnectorCard[];
  /** The card a key names, or undefined (RESOURCE_NOT_FOUND, reason unknown_connector). */
  card(key: string): ConnectorCard | undefined;
}

/** Package folders: every directory except hidden ones (.git, editor folders), in name order. */
function packageFolders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
    .map((entry) => entry.name)
    .sort();
}

export function loadConnectorRegistry(connectorsDir: string): ConnectorRegistry {
  const dir = resolve(connectorsDir);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new ConnectorLoadError([
      { file: dir, pointer: "", message: "the connectors folder does not exist; set CONNECTORS_DIR to the folder holding the connector packages" },
    ]);
  }
  const problems: PackageProblem[] = [];
  const loads = packageFolders(dir).map((folder) => ({ folder, load: loadConnectorPackage(join(dir, folder)) }));
  const keyOf = ({ load }: (typeof loads)[number]) => (load.ok ? load.package.key : load.key);
  // A key claimed twice belongs to the package in the folder of that name (the other is the
  // mistake), else to the first folder in name order.
  const owners = new Map<string, string>();
  for (const entry of loads) if (keyOf(entry) === entry.folder) owners.set(entry.folder, entry.folder);
  for (const entry of loads) {
    const key = keyOf(entry);
    if (key !== null && !owners.has(key)) owners.set(key, entry.folder);
  }

  const packages = new Map<string, ConnectorPackage>();
  // Keys the catalog file may name: every package folder and every key a manifest claims, so a
  // package that failed for another reason does not also fail the catalog file.
  const packageKeys = new Set<string>();
  for (const entry of loads) {
    const { folder, load } = entry;
    const key = keyOf(entry);
    packageKeys.add(folder);
    if (key !== null) packageKeys.add(key);
    if (!load.ok) problems.push(...load.problems);
    if (key !== null && owners.get(key) !== folder) {
      const message = `the key ${quoted(key)} is already used by ${displayPath(join(dir, owners.get(key)!, MANIFEST_FILE))}; every connector key is unique`;
      problems.push({ file: join(dir, folder, MANIFEST_FILE), pointer: "/key", message });
    } else if (load.ok) {
      packages.set(load.package.key, load.package);
    }
  }
  const { catalog, problems: catalogProblems } = readCatalogFile(dir, packageKeys);
  problems.push(...catalogProblems);
  if (problems.length) throw new ConnectorLoadError(problems);

  const paused = new Set(catalog.paused);
  const cards = [
    ...[...packages.values()].map((pkg) => packageCard(pkg, paused.has(pkg.key) ? "paused" : "available")),
    ...catalog.upcoming.map(upcomingCard),
  ].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const byKey = new Map(cards.map((card) => [card.key, card]));
  return { dir, packages, cards, card: (key) => byKey.get(key) };
}
