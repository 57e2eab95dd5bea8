// An outbox message as a real email: the plain-text part is the queued body with the product's
// signature; the HTML part is the same words, escaped, with every absolute link made clickable.
// The queued body stays plain text so a message is written once, where its cause is decided.
import { escape as escapeHtml } from "html-escaper";

export const PRODUCT_NAME = "SubBridge";

export interface RenderedMail {
  text: string;
  html: string;
}

const LINK = /https?:\/\/[^\s<>"]+[^\s<>".,;:!?)]/g;

export function renderMail(subject: string, body: string): RenderedMail {
  const text = `${body}\n\n-- \n${PRODUCT_NAME}\n`;
  const paragraphs = body
    .split(/\n{2,}/)
    .map((p) => `<p>${linkify(p).replace(/\n/g, "<br>\n")}</p>`)
    .join("\n");
  const html = [
    "<!doctype html>",
    `<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>`,
    '<body style="font-family: system-ui, sans-serif; line-height: 1.5; max-width: 40em">',
    paragraphs,
    `<p style="color: #666">— ${PRODUCT_NAME}</p>`,
    "</body></html>",
  ].join("\n");
  return { text, html };
}

/** `text` escaped for HTML, its absolute URLs as links (the URL escaped once, in both places). */
export function linkify(text: string): string {
  let out = "";
  let at = 0;
  for (const m of text.matchAll(LINK)) {
    out += escapeHtml(text.slice(at, m.index));
    out += `<a href="${escapeHtml(m[0])}">${escapeHtml(m[0])}</a>`;
    at = m.index + m[0].length;
  }
  return out + escapeHtml(text.slice(at));
}
