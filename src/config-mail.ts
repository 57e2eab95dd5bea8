// The mail settings of the configuration (src/config.ts): where the mail worker sends the outbox
// (SMTP_URL) and as whom (MAIL_FROM). A bad value is a one-line ConfigError naming the variable.
import { ConfigError, milliseconds, urlOrNull, type Env } from "./config-values.ts";

export interface MailConfig {
  /**
   * SMTP_URL (smtp://user:pass@host:587, STARTTLS when offered; smtps:// for TLS from the start);
   * null = none: a sandbox (SUBBRIDGE_ENVIRONMENT=test) runs the local mail catcher instead, a live
   * start leaves mail in the outbox (npm run cli -- mail:list).
   */
  smtpUrl: string | null;
  /** MAIL_FROM, default `SubBridge <no-reply@{auth host}>`: the From of every message. */
  from: string;
  /** The sender's domain: the right-hand side of every Message-ID. */
  fromDomain: string;
  /** SMTP_TIMEOUT_MS, default 10000: the bound on each SMTP wait (connect, greeting, every answer). */
  timeoutMs: number;
}

const ADDRESS = /^(?:[^<>]*<)?([^\s@<>]+)@([A-Za-z0-9.-]+)>?$/;

export function mailConfig(env: Env, authUrl: string): MailConfig {
  const smtpUrl = urlOrNull(env, "SMTP_URL", ["smtp:", "smtps:"]);
  const from = (env.MAIL_FROM || `SubBridge <no-reply@${new URL(authUrl).hostname}>`).trim();
  const parsed = ADDRESS.exec(from);
  if (!parsed) throw new ConfigError(`MAIL_FROM must be an address (no-reply@example.com) or a named one (SubBridge <no-reply@example.com>)`);
  return { smtpUrl, from, fromDomain: parsed[2]!.toLowerCase(), timeoutMs: milliseconds(env, "SMTP_TIMEOUT_MS", 10_000, 1_000, 120_000) };
}
