// What the simulators' pages share (the simulated Telegram's and Discord's): one stylesheet, pinned
// by its hash in a CSP that allows no script, the headers every page answers with, and message text
// with its addresses as links.
import { createHash } from "node:crypto";
import { escape } from "html-escaper";

export const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1c2733;background:#eef2f6}
main{max-width:980px;margin:0 auto;padding:20px 16px}
h1{font-size:1.35rem;margin:0 0 4px}h2{font-size:1.15rem;margin:0 0 8px}h3{font-size:1rem;margin:16px 0 6px}
.hint{color:#52606d;margin:0 0 12px;overflow-wrap:anywhere}
.notice{background:#fff8e1;border:1px solid #e0c36b;border-radius:6px;padding:8px 12px;overflow-wrap:anywhere}
section{background:#fff;border:1px solid #d5dde5;border-radius:8px;padding:12px 16px;margin:0 0 16px;min-width:0}
form.inline{display:inline-block;margin:0 4px 4px 0}
.grid{display:flex;flex-wrap:wrap;gap:8px;align-items:flex-end}
.grid label{display:flex;flex-direction:column;font-weight:500;font-size:.9rem;flex:1 1 140px;min-width:0}
input,select{font:inherit;padding:6px 8px;border:1px solid #9aa5b1;border-radius:5px;width:100%;background:#fff;color:inherit}
button{font:inherit;font-weight:600;padding:6px 12px;border:0;border-radius:5px;background:#2a7ab8;color:#fff;cursor:pointer}
button:focus,input:focus,select:focus{outline:3px solid #1c2733;outline-offset:1px}
ol{list-style:none;padding:0;margin:0}
li{padding:6px 0;border-bottom:1px solid #e4e9ee;overflow-wrap:anywhere}
.from{font-weight:600;margin-right:6px}.bot .from{color:#2a7ab8}.user .from{color:#3d7a3d}
.text{white-space:pre-wrap}
.state{font-weight:600}.state.member{color:#2f7d32}.state.banned,.state.removed,.state.revoked{color:#b3261e}
a{color:#1f5f94}
`;
/** The CSP; `formTargets` are the origins a form's answer may redirect to besides this page's (Chromium checks redirects too). */
const csp = (formTargets: readonly string[] = []) =>
  `default-src 'none'; style-src 'sha256-${createHash("sha256").update(STYLE).digest("base64")}'; img-src 'none'; form-action 'self'${formTargets.map((o) => ` ${o}`).join("")}; frame-ancestors 'none'; base-uri 'none'`;

export const LINK = /https?:\/\/[^\s<>"]+/g;

/** Message text with its addresses as links (escaped both ways). */
export function linkified(text: string): string {
  let out = "";
  let last = 0;
  for (const match of text.matchAll(LINK)) {
    out += escape(text.slice(last, match.index));
    out += `<a href="${escape(match[0])}">${escape(match[0])}</a>`;
    last = match.index! + match[0].length;
  }
  return out + escape(text.slice(last));
}

/** The headers of a simulator's page whose forms stay on it, or redirect to `formTargets`. */
export const pageHeaders = (formTargets: readonly string[] = []) => ({
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": csp(formTargets),
  "x-content-type-options": "nosniff",
  // same-origin, not no-referrer: under no-referrer Chromium sends "Origin: null" with the page's forms, which the check refuses.
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
});

/** A form's Origin, when the browser sent one, is the page's own address: another site's page cannot drive a simulator. */
export const foreignForm = (headers: { origin?: string | undefined; host?: string | undefined }) =>
  headers.origin !== undefined && headers.origin !== `http://${headers.host}`;

/** A simulator's page: the shared head and style around `body`. */
export const simPage = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escape(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
