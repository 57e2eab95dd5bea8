// @subbridge/sdk/connector/package: loads one connector package folder exactly as the SubBridge
// server does at start (the server imports this module), so `subbridge-connector validate` refuses
// what the server would refuse: connector.json checked by validateManifest, the folder named after
// the key, and lang/en.json present and translating every string a creator reads (Node only).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { ConnectorManifest } from "../generated/connector-manifest.js";
import { creatorStrings, type CreatorString } from "./creator-strings.js";
import { checkManifest } from "./manifest-checks.js";
import { childPointer } from "./pointer.js";

export const MANIFEST_FILE = "connector.json";
export const ENGLISH_FILE = join("lang", "en.json");

export interface PackageProblem {
  /** Path of the file the problem is in. */
  file: string;
  /** JSON pointer into that file ("/listing/tagline"); "" when the problem is about the whole file. */
  pointer: string;
  /** One sentence a person can act on. */
  message: string;
  /** What to change, when the message does not already say it. */
  fix?: string;
}

export interface ConnectorPackage {
  key: string;
  /** The package folder, as given. */
  dir: string;
  manifest: ConnectorManifest;
  /** lang/en.json: English key -> the text a creator reads. */
  english: Readonly<Record<string, string>>;
  /** The other lang/<language>.json files by language ("de"): English key -> its translation (a missing key falls back to English). */
  translations: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

export type PackageLoad = { ok: true; package: ConnectorPackage } | { ok: false; problems: PackageProblem[]; key: string | null };

/** `<file>: <pointer>: <problem> — <fix>`, the line the CLI and the server's refusal print. */
export function formatProblem(problem: PackageProblem, file = problem.file): string {
  return `${file}: ${problem.pointer ? `${problem.pointer}: ` : ""}${problem.message}${problem.fix ? ` — ${problem.fix}` : ""}`;
}

/** A string value as messages quote it, shortened (an overview can be a page long). */
export function quoted(text: string): string {
  const json = JSON.stringify(text);
  return json.length > 60 ? `${json.slice(0, 56)}..."` : json;
}

const pointerTo = (key: string) => childPointer("", key);

/** A language file as a map of English keys to non-empty strings, or the problems that prevent it. */
function readLanguageFile(file: string): { strings: Record<string, string> | null; problems: PackageProblem[] } {
  if (!existsSync(file)) {
    const fix = `create ${ENGLISH_FILE} mapping each English string of connector.json to its text, e.g. {"Open the bot": "Open the bot"}`;
    return { strings: null, problems: [{ file, pointer: "", message: "the file is missing; every string a creator reads is translated here", fix }] };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8").replace(/^\uFEFF/, ""));
  } catch (err) {
    return { strings: null, problems: [{ file, pointer: "", message: `the file is not valid JSON: ${(err as Error).message}` }] };
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return { strings: null, problems: [{ file, pointer: "", message: "must be an object mapping each English key to its text" }] };
  }
  const problems: PackageProblem[] = [];
  for (const [key, text] of Object.entries(parsed)) {
    if (typeof text !== "string" || text === "")
      problems.push({ file, pointer: pointerTo(key), message: "must be a non-empty string (the English text)" });
  }
  return { strings: problems.length ? null : (parsed as Record<string, string>), problems };
}

/** Every lang/<language>.json beside en.json (two lower-case letters), read by the rules of en.json. */
function readTranslations(dir: string): { translations: Record<string, Record<string, string>>; problems: PackageProblem[] } {
  const langDir = join(dir, "lang");
  const translations: Record<string, Record<string, string>> = {};
  const problems: PackageProblem[] = [];
  const files = existsSync(langDir) ? readdirSync(langDir).filter((name) => /^[a-z]{2}\.json$/.test(name) && name !== "en.json") : [];
  for (const name of files.sort()) {
    const read = readLanguageFile(join(langDir, name));
    problems.push(...read.problems);
    if (read.strings) translations[name.slice(0, 2)] = read.strings;
  }
  return { translations, problems };
}

/** A translation must keep the rule its key follows, since the card shows the translation. */
function translationProblem(string: CreatorString, text: string): string | null {
  if (string.rule === "tagline" && [...text].length > 80)
    return `the tagline's translation must be at most 80 characters (it has ${[...text].length})`;
  if (string.rule === "lower_case" && /[A-Z]/.test(text)) return `the translation of ${quoted(string.text)} must be written in lower case`;
  return null;
}

function translationProblems(
  manifestFile: string,
  englishFile: string,
  manifest: ConnectorManifest,
  english: Record<string, string>,
): PackageProblem[] {
  const problems: PackageProblem[] = [];
  const reported = new Set<string>();
  for (const string of creatorStrings(manifest)) {
    if (!Object.hasOwn(english, string.text)) {
      const fix = `add ${JSON.stringify(string.text)} as a key of ${ENGLISH_FILE}`;
      problems.push({ file: manifestFile, pointer: string.pointer, message: `${quoted(string.text)} has no translation in ${ENGLISH_FILE}`, fix });
      continue;
    }
    const broken = translationProblem(string, english[string.text]!);
    if (broken && !reported.has(string.text)) {
      reported.add(string.text);
      problems.push({ file: englishFile, pointer: pointerTo(string.text), message: broken });
    }
  }
  return problems;
}

/** Loads the package in `dir`; its folder name must be its key. */
export function loadConnectorPackage(dir: string): PackageLoad {
  const manifestFile = join(dir, MANIFEST_FILE);
  const englishFile = join(dir, ENGLISH_FILE);
  if (!existsSync(manifestFile)) {
    const message = "the file is missing; every folder of the connectors folder is a connector package";
    return { ok: false, key: null, problems: [{ file: manifestFile, pointer: "", message }] };
  }
  const { manifest, problems: manifestProblems } = checkManifest(readFileSync(manifestFile, "utf8"));
  const problems: PackageProblem[] = manifestProblems.map((e) => ({
    file: manifestFile,
    pointer: e.pointer,
    message: e.message,
    ...(e.fix ? { fix: e.fix } : {}),
  }));
  const key = manifest?.key ?? null;

  const folder = basename(dir);
  if (key !== null && key !== folder) {
    problems.push({
      file: manifestFile,
      pointer: "/key",
      message: `the key ${quoted(key)} differs from the package's folder name ${quoted(folder)}; rename one so they match`,
    });
  }
  const english = readLanguageFile(englishFile);
  problems.push(...english.problems);
  if (manifest && english.strings) problems.push(...translationProblems(manifestFile, englishFile, manifest, english.strings));
  const { translations, problems: translationFileProblems } = readTranslations(dir);
  problems.push(...translationFileProblems);

  if (!manifest || problems.length || !english.strings) return { ok: false, key, problems };
  return { ok: true, package: { key: manifest.key, dir, manifest, english: english.strings, translations } };
}
