// A bot message written as translatable lines: each line an English key of the connector package's
// language files with its {placeholders}' values. Producers queue phrases; the bot message worker
// translates them at send time into the sending installation's language, so a queued notice, an
// invite link or a reply reads in the language the creator set, whoever queued it.

export type TextVars = Readonly<Record<string, string | number>>;

/** One line of a message: the English `key` and the values of its placeholders. */
export interface Phrase {
  readonly key: string;
  readonly vars?: TextVars;
}

/** A line (the key is looked up in the package's language files as written). */
export const phrase = (key: string, vars?: TextVars): Phrase => (vars ? { key, vars } : { key });

/** Fills `{name}` placeholders; an unknown one stays as written so a mistake is visible. */
export function fillPlaceholders(text: string, vars: TextVars = {}): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(vars, name) ? String(vars[name]) : whole));
}

/** The message's lines through `translate` (English: the keys themselves), one per line. */
export function renderPhrases(phrases: readonly Phrase[], translate: (key: string, vars?: TextVars) => string = fillPlaceholders): string {
  return phrases.map((p) => translate(p.key, p.vars)).join("\n");
}

/** Phrases as stored (a JSON column some drivers hand back as text), or null for a message of plain text. */
export function storedPhrases(raw: unknown): Phrase[] | null {
  if (raw === null || raw === undefined) return null;
  return (typeof raw === "string" ? JSON.parse(raw) : raw) as Phrase[];
}
