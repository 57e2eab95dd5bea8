// Sending one outbox message over SMTP with nodemailer, and what its failure means: a 5xx answer to
// the envelope or the message is permanent (the receiver refused this message); anything else (a
// 4xx, a refused or dropped connection, a time-out, a 5xx to our own sign-in, which is the
// operator's configuration and not the message) is retried. Every SMTP wait is bounded.
import type { Transporter } from "nodemailer";
import type SMTPTransport from "nodemailer/lib/smtp-transport/index.js";
import { PRODUCT_NAME, renderMail } from "./render.ts";
import type { ClaimedMail } from "./queue.ts";

export interface MailSender {
  /** Sends `mail`; throws a MailSendError saying whether another attempt may succeed. */
  send(mail: ClaimedMail): Promise<void>;
  close(): void;
}

export class MailSendError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

export interface SmtpSettings {
  smtpUrl: string;
  from: string;
  /** Bound on each wait: DNS, connect, greeting, and every answer. */
  timeoutMs: number;
}

/** How long a send can take at most: a lease must outlast it (DNS, connect, greeting, and a few answers). */
export function longestSendMs(timeoutMs: number): number {
  return timeoutMs * 6;
}

export function smtpSender(settings: SmtpSettings): MailSender {
  const url = new URL(settings.smtpUrl);
  const options: SMTPTransport.Options = {
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port ? Number(url.port) : url.protocol === "smtps:" ? 465 : 587,
    secure: url.protocol === "smtps:",
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    connectionTimeout: settings.timeoutMs,
    greetingTimeout: settings.timeoutMs,
    socketTimeout: settings.timeoutMs,
    dnsTimeout: settings.timeoutMs,
  };
  // nodemailer loads with the first message to send, not with every start of a process that may send none.
  let transport: Promise<Transporter<SMTPTransport.SentMessageInfo>> | null = null;
  const opened = () => (transport ??= import("nodemailer").then(({ default: nodemailer }) => nodemailer.createTransport(options)));
  return {
    async send(mail) {
      const { text, html } = renderMail(mail.subject, mail.body, mail.links);
      try {
        await (
          await opened()
        ).sendMail({
          from: settings.from,
          to: mail.to,
          subject: mail.subject,
          text,
          html,
          messageId: mail.messageId,
          headers: { "X-Mailer": PRODUCT_NAME },
        });
      } catch (err) {
        throw classify(err);
      }
    },
    close: () => void transport?.then((opened) => opened.close()),
  };
}

function classify(err: unknown): MailSendError {
  const { responseCode, code, message } = err as { responseCode?: number; code?: string; message?: string };
  const permanent = typeof responseCode === "number" && responseCode >= 500 && code !== "EAUTH";
  return new MailSendError(`${code ?? "ERROR"}${responseCode ? ` ${responseCode}` : ""}: ${message ?? String(err)}`, permanent);
}
