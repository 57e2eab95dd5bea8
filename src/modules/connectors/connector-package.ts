// One connector package folder: connector.json checked against the manifest schema (through the
// SDK's validateManifest, so the server and connector authors read the same messages), then the
// rules that span files: the folder is named after the key, and every string a creator reads has
// an English translation in lang/en.json.
import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { validateManifest } from "@subbridge/sdk/connector";
import type { ConnectorManifest } from "../../../generated/connector-manifest.d.ts";
import { creatorStrings, type CreatorString } from "./creator-strings.ts";
import { pointerToken, quoted, type PackageProblem } from "./problems.ts";

export const MANIFEST_FILE = "connector.json";
export const ENGLISH_FILE = join("lang", "en.json");

export interface ConnectorPackage {
  key: string;
  /** The package folder, absolute. */
  dir: string;
  manifest: ConnectorManifest;
  /** lang/en.json: English key -> the text a creator reads. */
  english: Readonly<Record<string, string>>;
}

export type PackageLoad = { ok: true; package: ConnectorPackage } | { ok: false; problems: PackageProblem[]; key: string | null };

/** lang/en.json as a map of English keys to non-empty strings, or the problems that prevent it. */
function readEnglish(file: string): { strings: Record<string, string> | null; problems: PackageProblem[] } {
  if (!existsSync(file)) {
    return { strings: null, problems: [{ file, pointer: "", message: "the file is missing; every string a creator reads is translated here" }] };
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
      problems.push({ file, pointer: `/${pointerToken(key)}`, message: "must be a non-empty string (the English text)" });
  }
  return { strings: problems.length ? null : (parsed as Record<string, string>), problems };
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
      problems.push({ file: manifestFile, pointer: string.pointer, message: `${quoted(string.text)} has no translation in ${ENGLISH_FILE}` });
      continue;
    }
    const broken = translationProblem(string, english[string.text]!);
    if (broken && !reported.has(string.text)) {
      reported.add(string.text);
      problems.push({ file: englishFile, pointer: `/${pointerToken(string.text)}`, message: broken });
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
  const checked = validateManifest(readFileSync(manifestFile, "utf8"));
  const problems: PackageProblem[] = checked.valid ? [] : checked.errors.map((e) => ({ file: manifestFile, pointer: e.pointer, message: e.message }));
  const key = checked.valid ? checked.manifest.key : null;

  const folder = basename(dir);
  if (key !== null && key !== folder) {
    problems.push({
      file: manifestFile,
      pointer: "/key",
      message: `the key ${quoted(key)} differs from the package's folder name ${quoted(folder)}; rename one so they match`,
    });
  }
  const english = readEnglish(englishFile);
  problems.push(...english.problems);
  if (checked.valid && english.strings) problems.push(...translationProblems(manifestFile, englishFile, checked.manifest, english.strings));

  if (!checked.valid || problems.length || !english.strings) return { ok: false, key, problems };
  return { ok: true, package: { key: checked.manifest.key, dir, manifest: checked.manifest, english: english.strings } };
}
