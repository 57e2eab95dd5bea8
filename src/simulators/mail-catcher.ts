// The local mail catcher `npm start` runs when no SMTP_URL is set in a sandbox: an in-process SMTP
// server on loopback the mail worker sends to, keeping the last messages in memory (parsed with
// postal-mime), and a small page on its own loopback listener listing them and showing each with its
// own links (those of its HTML part) clickable. Its own listener keeps the product's hosts free of a
// page that is not theirs; it answers a loopback Host only (a DNS-rebinding page would read reset links otherwise).
// Tests use the same receiver, with `answer` to make it refuse a message (a 4xx or 5xx).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { escape as escapeHtml, unescape as unescapeHtml } from "html-escaper";
import type { Readable } from "node:stream";
import PostalMime, { type Address } from "postal-mime";
import { SMTPServer } from "smtp-server";
import { listenPreferring, refusedForeignHost } from "./loopback.ts";
import { htmlText, PRODUCT_NAME } from "../modules/mail/render.ts";

/** The links of an HTML part as received. */
const hrefsOf = (html: string | null) => [...(html ?? "").matchAll(/<a href="([^"]*)"/g)].map((m) => unescapeHtml(m[1]!));

export interface CaughtMail {
  /** 1, 2, ...: the catcher's own numbering, for its page. */
  number: number;
  messageId: string | null;
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string | null;
  receivedAt: Date;
}

export interface MailCatcherOptions {
  /** The page's listener (loopback); null = no page (tests). Port 0 picks a free one. */
  page?: { host: string; port: number; strict?: boolean } | null;
  /** The SMTP listener's port (MAIL_CATCHER_SMTP_PORT); default 0, a free one. */
  smtpPort?: number;
  /** Refuses a message with this SMTP code (e.g. 451, 550) instead of keeping it; null keeps it. */
  answer?: (to: string[]) => number | null;
  /** How many messages are kept (default 200; older ones are dropped). */
  keep?: number;
  /** Waits this long before answering each message (tests: a send in flight). */
  holdMs?: number;
}

export interface MailCatcher {
  /** The SMTP_URL the worker sends to (smtp://127.0.0.1:port). */
  smtpUrl: string;
  /** The page's address; null without a page. */
  pageUrl: string | null;
  messages(): readonly CaughtMail[];
  close(): Promise<void>;
}

const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** A message's source as the SMTP server streams it; refused (552) past MAX_MESSAGE_BYTES, which smtp-server only announces. */
async function readMessage(stream: Readable & { sizeExceeded?: boolean }): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  if (stream.sizeExceeded) throw Object.assign(new Error("the message is larger than the catcher keeps"), { responseCode: 552 });
  return Buffer.concat(chunks);
}

/** "Name <address>", as a From header reads. */
function addressText(address: Address): string {
  if (!("address" in address) || !address.address) return address.name;
  return address.name ? `${address.name} <${address.address}>` : address.address;
}

export async function startMailCatcher(options: MailCatcherOptions = {}): Promise<MailCatcher> {
  const caught: CaughtMail[] = [];
  const keep = options.keep ?? 200;
  let counter = 0;
  const smtp = new SMTPServer({
    // A loopback receiver: no sign-in, and no STARTTLS (it has no certificate a client could trust).
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    size: MAX_MESSAGE_BYTES,
    banner: `${PRODUCT_NAME} mail catcher`,
    logger: false,
    onData(stream, session, callback) {
      const to = session.envelope.rcptTo.map((a) => a.address);
      // postal-mime rather than mailparser, whose charset tables cost the process about 29 MB at the first message.
      readMessage(stream)
        .then((source) => PostalMime.parse(source))
        .then(async (parsed) => {
          if (options.holdMs) await new Promise((r) => setTimeout(r, options.holdMs));
          const code = options.answer?.(to) ?? null;
          if (code !== null) return callback(Object.assign(new Error(`refused by the catcher (${code})`), { responseCode: code }));
          counter += 1;
          caught.push({
            number: counter,
            messageId: parsed.messageId ?? null,
            from: parsed.from ? addressText(parsed.from) : "",
            to,
            subject: parsed.subject ?? "",
            text: parsed.text ?? "",
            html: parsed.html ?? null,
            receivedAt: new Date(),
          });
          if (caught.length > keep) caught.shift();
          callback();
        })
        .catch((err: Error) => callback(err));
    },
  });
  await new Promise<void>((resolve, reject) => {
    smtp.once("error", reject);
    smtp.listen(options.smtpPort ?? 0, "127.0.0.1", () => {
      smtp.off("error", reject);
      resolve();
    });
  });
  // smtp-server re-emits a client's socket error mid-message (a sender killed or reset) on the server:
  // that message is simply not caught, and an unheard "error" event would end the whole process.
  smtp.on("error", () => undefined);
  const smtpPort = (smtp.server.address() as AddressInfo).port;
  let page: Server | null = null;
  try {
    if (options.page) {
      const server = createServer((req, res) => void (refusedForeignHost(req, res) || servePage(req.url ?? "/", caught, res)));
      page = await listenPreferring(server, options.page);
    }
  } catch (err) {
    // A page port that is taken (MAIL_CATCHER_PORT) leaves no SMTP listener behind.
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    throw err;
  }
  return {
    smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
    pageUrl: page ? `http://${options.page!.host}:${(page.address() as AddressInfo).port}` : null,
    messages: () => caught,
    async close() {
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
      if (page) await new Promise<void>((resolve) => page.close(() => resolve()));
    },
  };
}

function servePage(path: string, caught: readonly CaughtMail[], res: import("node:http").ServerResponse): void {
  const one = /^\/messages\/(\d+)$/.exec(path);
  let body: string;
  let status = 200;
  if (path === "/") {
    const rows = [...caught]
      .reverse()
      .map(
        (m) =>
          `<tr><td>${escapeHtml(m.receivedAt.toISOString())}</td><td>${escapeHtml(m.to.join(", "))}</td>` +
          `<td><a href="/messages/${m.number}">${escapeHtml(m.subject || "(no subject)")}</a></td></tr>`,
      )
      .join("\n");
    body =
      `<h1>Mail caught on this start</h1><p>Messages the service sent, newest first (the last 200, in memory). ` +
      `Set SMTP_URL to send real mail.</p>` +
      (rows ? `<table><tr><th>Received</th><th>To</th><th>Subject</th></tr>\n${rows}</table>` : "<p>No mail yet.</p>");
  } else if (one && caught.some((m) => m.number === Number(one[1]))) {
    const m = caught.find((c) => c.number === Number(one[1]))!;
    body =
      `<p><a href="/">All mail</a></p><h1>${escapeHtml(m.subject)}</h1>` +
      `<p>From ${escapeHtml(m.from)}<br>To ${escapeHtml(m.to.join(", "))}<br>Message-ID ${escapeHtml(m.messageId ?? "")}</p>` +
      // The text part with the HTML part's links clickable: those are the message's own (render.ts), nothing else is.
      `<h2>Text</h2><pre style="white-space: pre-wrap">${htmlText(m.text, hrefsOf(m.html))}</pre>` +
      (m.html
        ? `<h2>HTML</h2><iframe title="HTML part" sandbox="allow-popups allow-popups-to-escape-sandbox" style="width: 100%; height: 24em; border: 1px solid #ccc" srcdoc="${escapeHtml(`<base target="_blank">${m.html}`)}"></iframe>`
        : "");
  } else {
    status = 404;
    body = `<p>No such message. <a href="/">All mail</a></p>`;
  }
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "content-security-policy": "script-src 'none'" });
  res.end(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${PRODUCT_NAME} mail</title></head><body style="font-family: system-ui, sans-serif">${body}</body></html>`,
  );
}
