// An outbox message as a real email: the plain-text part is the queued body with the product's
// signature; the HTML part is the same words, escaped, where only the message's own links (our
// pages, listed when it was queued) are links. Everything else that a mail client would link on
// sight (a URL, a domain, an address someone else wrote into a name or an instruction) is defused
// with an invisible Word Joiner (U+2060) before each of its dots, colons, slashes and at signs: no
// URL may hold one, so clients that auto-link text (Gmail, Outlook, Apple Mail) leave it as text
// (docs/decisions.md, "Mail carries no one else's links"). The queued body stays plain text so a
// message is written once, where its cause is decided.
import { escape as escapeHtml } from "html-escaper";

export const PRODUCT_NAME = "SubBridge";

export interface RenderedMail {
  text: string;
  html: string;
}

export function renderMail(subject: string, body: string, links: readonly string[] = []): RenderedMail {
  const text = `${body}\n\n-- \n${PRODUCT_NAME}\n`;
  const paragraphs = body
    .split(/\n{2,}/)
    .map((p) => `<p>${htmlText(p, links).replace(/\n/g, "<br>\n")}</p>`)
    .join("\n");
  const html = [
    "<!doctype html>",
    `<html><head><meta charset="utf-8"><title>${defuse(escapeHtml(subject))}</title></head>`,
    '<body style="font-family: system-ui, sans-serif; line-height: 1.5; max-width: 40em">',
    paragraphs,
    `<p style="color: #666">— ${PRODUCT_NAME}</p>`,
    "</body></html>",
  ].join("\n");
  return { text, html };
}

/** What auto-linkers build links from: the dots of a name (IDNA's ideographic and full-width ones too), a scheme's colon and slashes, an address's at sign. */
const LINKABLE_MARK = /[.:/@\u3002\uFF0E\uFF61]/g;
const WORD_JOINER = "&#8288;";

/** Escaped text with a Word Joiner before every mark a client could read as part of a link. */
function defuse(escaped: string): string {
  return escaped.replace(LINKABLE_MARK, (mark) => `${WORD_JOINER}${mark}`);
}

/**
 * `text` for the HTML part: escaped; each occurrence of one of `links` (the message's own, longest
 * first) a link to it; the rest defused.
 */
export function htmlText(text: string, links: readonly string[]): string {
  const own = [...new Set(links)].filter((l) => l.length > 0).sort((a, b) => b.length - a.length);
  let out = "";
  let at = 0;
  while (at < text.length) {
    let next: { index: number; link: string } | null = null;
    for (const link of own) {
      const index = text.indexOf(link, at);
      if (index >= 0 && (next === null || index < next.index)) next = { index, link };
    }
    if (next === null) break;
    out += defuse(escapeHtml(text.slice(at, next.index)));
    out += `<a href="${escapeHtml(next.link)}">${escapeHtml(next.link)}</a>`;
    at = next.index + next.link.length;
  }
  return out + defuse(escapeHtml(text.slice(at)));
}
