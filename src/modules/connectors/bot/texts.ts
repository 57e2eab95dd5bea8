// The words a connector bot sends a member, translated through the connector package's own
// language files (lang/<language>.json: English key -> translation), as the seed asks of every
// string a person reads. A key missing from a language falls back to English; {name} placeholders
// are filled after translating. The language is the member's platform language when the package
// ships it, else the installation's `language` setting, else English.
import { fillPlaceholders, renderPhrases, type Phrase, type TextVars } from "../../bot-messages/phrases.ts";
import type { ConnectorPackage } from "../connector-package.ts";
import type { InstallationRow } from "../tables.ts";

export type { TextVars };

/** What a package offers the translator: its English texts and the other languages it ships. */
export type PackageTexts = Pick<ConnectorPackage, "english" | "translations">;

export interface BotTexts {
  /** The language the texts are in ("en", "de"). */
  readonly lang: string;
  /** The translation of the English `key`, its {placeholders} filled from `vars`. */
  t(key: string, vars?: TextVars): string;
  /** A message's lines translated, one per line. */
  lines(phrases: readonly Phrase[]): string;
  /** A date as members read it ("27 November 2026", UTC), in the texts' language. */
  day(at: Date): string;
}

/** t(lang, key, vars): the package's translation of `key` in `lang`, English when it has none. */
export function translate(pkg: PackageTexts | undefined, lang: string, key: string, vars?: TextVars): string {
  const translated = lang === "en" ? undefined : pkg?.translations[lang]?.[key];
  return fillPlaceholders(translated ?? pkg?.english[key] ?? key, vars);
}

/** The texts of `pkg` in `lang`. */
export function botTexts(pkg: PackageTexts | undefined, lang: string): BotTexts {
  return {
    lang,
    t: (key, vars) => translate(pkg, lang, key, vars),
    lines: (phrases) => renderPhrases(phrases, (key, vars) => translate(pkg, lang, key, vars)),
    // en-GB for English: the day before the month, as the portal has always written it.
    day: (at) => new Date(at).toLocaleDateString(lang === "en" ? "en-GB" : lang, { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" }),
  };
}

/** The English texts (what the portal shows, and a bot whose package ships no other language). */
export const ENGLISH_TEXTS: BotTexts = botTexts(undefined, "en");

/** An installation's settings as an object (a driver that stores JSON as text hands a string). */
export function settingsOf(installation: Pick<InstallationRow, "settings">): Record<string, unknown> {
  const raw: unknown = installation.settings;
  if (typeof raw === "string") return JSON.parse(raw) as Record<string, unknown>;
  return (raw ?? {}) as Record<string, unknown>;
}

/** The member's language ("pt-br" -> "pt") when the package ships it, else the installation's `language`, else English. */
export function botLanguage(pkg: PackageTexts | undefined, installation: Pick<InstallationRow, "settings">, memberLanguage?: string | null): string {
  const shipped = (lang: string) => lang === "en" || (pkg !== undefined && Object.hasOwn(pkg.translations, lang));
  const member = typeof memberLanguage === "string" ? memberLanguage.slice(0, 2).toLowerCase() : "";
  if (member && shipped(member)) return member;
  const setting = settingsOf(installation).language;
  return typeof setting === "string" && shipped(setting) ? setting : "en";
}

/** The texts an installation's bot answers a member in. */
export function installationTexts(
  packages: ReadonlyMap<string, PackageTexts>,
  installation: Pick<InstallationRow, "connector_key" | "settings">,
  memberLanguage?: string | null,
): BotTexts {
  const pkg = packages.get(installation.connector_key);
  return botTexts(pkg, botLanguage(pkg, installation, memberLanguage));
}
