// The operator's catalog file beside the packages (catalog.yaml, catalog.yml or catalog.json,
// optional). A manifest has no status (unknown properties are refused), so availability is the
// operator's decision, written here:
//
//   paused: [discord]            # loaded packages that take no new installs for now
//   upcoming:                    # announced connectors that have no package yet
//     - key: whatsapp
//       name: WhatsApp
//       status: roadmap          # roadmap | in_development
//       category: messaging      # messaging | community | payments | productivity
//       tagline: Sell memberships to WhatsApp communities   # 1 to 80 characters
//       added_at: 2026-10-01     # YYYY-MM-DD, the date the card joined the catalog
//       overview: Markdown text  # optional
//
// Every loaded package not listed under paused is available. Contradictions are refused at start:
// a paused key without a package (a typo would otherwise pause nothing), an upcoming key that has a
// package (the manifest is the card then: delete the entry), a key listed twice.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseDocument } from "yaml";
import type { components } from "../../../generated/openapi.d.ts";
import { pointerToken, quoted, type PackageProblem } from "./problems.ts";

type Schemas = components["schemas"];
export type UpcomingStatus = Extract<Schemas["ConnectorStatus"], "roadmap" | "in_development">;

export interface UpcomingConnector {
  key: string;
  name: string;
  status: UpcomingStatus;
  category: Schemas["ConnectorCategory"];
  tagline: string;
  added_at: string;
  overview: string | null;
}

export interface CatalogFile {
  /** The file read, or null when there is none (every package available, nothing upcoming). */
  file: string | null;
  paused: string[];
  upcoming: UpcomingConnector[];
}

export const CATALOG_FILES = ["catalog.yaml", "catalog.yml", "catalog.json"] as const;

// Records over the generated unions: tsc fails when the spec's enums change and these do not.
const UPCOMING_STATUSES: Record<UpcomingStatus, true> = { roadmap: true, in_development: true };
const CATEGORIES: Record<Schemas["ConnectorCategory"], true> = { messaging: true, community: true, payments: true, productivity: true };
const KEY_PATTERN = /^[a-z][a-z0-9_-]*$/;
const ENTRY_PROPERTIES = ["key", "name", "status", "category", "tagline", "added_at", "overview"];
const REQUIRED_PROPERTIES = ENTRY_PROPERTIES.filter((p) => p !== "overview");

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
/** A real calendar date written YYYY-MM-DD (2026-02-30 is refused, not rolled over). */
function isDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

/** Why a property of an upcoming entry is refused, or null when it is fine. */
function entryPropertyProblem(property: string, value: unknown): string | null {
  if (typeof value !== "string") return `must be a string (it is ${JSON.stringify(value) ?? "missing"})`;
  switch (property) {
    case "key":
      return KEY_PATTERN.test(value) ? null : `must start with a lowercase letter and contain only a-z, 0-9, _ and - (it is ${quoted(value)})`;
    case "status":
      return value in UPCOMING_STATUSES
        ? null
        : `must be roadmap or in_development (it is ${quoted(value)}); a connector with a package is available unless listed under paused`;
    case "category":
      return value in CATEGORIES ? null : `must be one of ${Object.keys(CATEGORIES).join(", ")} (it is ${quoted(value)})`;
    case "tagline":
      return value.length > 0 && [...value].length <= 80 ? null : `must be 1 to 80 characters (it has ${[...value].length})`;
    case "added_at":
      return isDate(value) ? null : `must be a date written YYYY-MM-DD, like 2026-10-01 (it is ${quoted(value)})`;
    default:
      return value.length > 0 ? null : "must not be empty";
  }
}

function checkUpcoming(file: string, entries: unknown, packageKeys: ReadonlySet<string>, problems: PackageProblem[]): UpcomingConnector[] {
  if (!Array.isArray(entries)) {
    problems.push({ file, pointer: "/upcoming", message: "must be a list of announced connectors" });
    return [];
  }
  const upcoming: UpcomingConnector[] = [];
  const seen = new Map<string, number>();
  entries.forEach((entry, i) => {
    const at = `/upcoming/${i}`;
    if (!isObject(entry)) {
      problems.push({ file, pointer: at, message: `must be an object with ${REQUIRED_PROPERTIES.join(", ")} (and optionally overview)` });
      return;
    }
    const before = problems.length;
    for (const property of Object.keys(entry)) {
      if (!ENTRY_PROPERTIES.includes(property))
        problems.push({
          file,
          pointer: `${at}/${pointerToken(property)}`,
          message: `is not a property of an upcoming connector (allowed: ${ENTRY_PROPERTIES.join(", ")})`,
        });
    }
    for (const property of ENTRY_PROPERTIES) {
      // An empty overview line in YAML reads as null: the same as leaving it out.
      if (!(property in entry) || (property === "overview" && entry.overview === null)) {
        if (property !== "overview") problems.push({ file, pointer: `${at}/${property}`, message: "is required" });
        continue;
      }
      const problem = entryPropertyProblem(property, entry[property]);
      if (problem) problems.push({ file, pointer: `${at}/${property}`, message: problem });
    }
    if (typeof entry.key === "string") {
      if (packageKeys.has(entry.key)) {
        problems.push({ file, pointer: `${at}/key`, message: `${quoted(entry.key)} has a connector package, which is its card; remove this entry` });
      } else if (seen.has(entry.key)) {
        problems.push({ file, pointer: `${at}/key`, message: `${quoted(entry.key)} is already listed at /upcoming/${seen.get(entry.key)}` });
      }
      seen.set(entry.key, seen.get(entry.key) ?? i);
    }
    if (problems.length === before)
      upcoming.push({ ...(entry as Omit<UpcomingConnector, "overview">), overview: (entry.overview as string | undefined) ?? null });
  });
  return upcoming;
}

function checkPaused(file: string, keys: unknown, packageKeys: ReadonlySet<string>, problems: PackageProblem[]): string[] {
  if (!Array.isArray(keys)) {
    problems.push({ file, pointer: "/paused", message: "must be a list of connector keys" });
    return [];
  }
  const paused: string[] = [];
  keys.forEach((key, i) => {
    const at = `/paused/${i}`;
    if (typeof key !== "string") problems.push({ file, pointer: at, message: "must be a connector key (a string)" });
    else if (!packageKeys.has(key)) {
      const loaded = [...packageKeys].sort().join(", ") || "none";
      problems.push({ file, pointer: at, message: `${quoted(key)} is not a connector package in this folder (packages: ${loaded})` });
    } else if (paused.includes(key)) problems.push({ file, pointer: at, message: `${quoted(key)} is listed twice` });
    else paused.push(key);
  });
  return paused;
}

/** Checks the parsed catalog against the package keys found beside it. */
export function checkCatalog(file: string, data: unknown, packageKeys: ReadonlySet<string>): { catalog: CatalogFile; problems: PackageProblem[] } {
  const problems: PackageProblem[] = [];
  const catalog: CatalogFile = { file, paused: [], upcoming: [] };
  // An empty file (or one holding only comments) decides nothing.
  if (data === null || data === undefined) return { catalog, problems };
  if (!isObject(data)) return { catalog, problems: [{ file, pointer: "", message: "must be an object with the lists paused and upcoming" }] };
  for (const property of Object.keys(data)) {
    if (property !== "paused" && property !== "upcoming")
      problems.push({ file, pointer: `/${pointerToken(property)}`, message: "is not a catalog property (allowed: paused, upcoming)" });
  }
  if (data.paused !== undefined && data.paused !== null) catalog.paused = checkPaused(file, data.paused, packageKeys, problems);
  if (data.upcoming !== undefined && data.upcoming !== null) catalog.upcoming = checkUpcoming(file, data.upcoming, packageKeys, problems);
  return { catalog, problems };
}

/** Reads the catalog file of `dir`, if there is one. YAML 1.2 reads JSON too, so one parser serves both. */
export function readCatalogFile(dir: string, packageKeys: ReadonlySet<string>): { catalog: CatalogFile; problems: PackageProblem[] } {
  const present = CATALOG_FILES.map((name) => join(dir, name)).filter((file) => existsSync(file));
  if (present.length === 0) return { catalog: { file: null, paused: [], upcoming: [] }, problems: [] };
  const file = present[0]!;
  if (present.length > 1) {
    const message = `only one catalog file may exist; found ${present.map((f) => f.slice(dir.length + 1)).join(" and ")}`;
    return { catalog: { file, paused: [], upcoming: [] }, problems: [{ file, pointer: "", message }] };
  }
  const document = parseDocument(readFileSync(file, "utf8"));
  if (document.errors.length) {
    // The parser's first line says what and where ("... at line 3, column 1:"); the code frame after it does not fit a list.
    const problems = document.errors.map((e) => ({
      file,
      pointer: "",
      message: `the file cannot be parsed: ${e.message.split("\n")[0]!.replace(/:$/, "")}`,
    }));
    return { catalog: { file, paused: [], upcoming: [] }, problems };
  }
  return checkCatalog(file, document.toJS(), packageKeys);
}
