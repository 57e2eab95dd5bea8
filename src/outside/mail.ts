// What `npm start` runs for mail: the mail worker sending to SMTP_URL, or, in a sandbox with none
// set, to the local mail catcher it starts (src/simulators/mail-catcher.ts); a live start with no
// SMTP_URL sends nothing and its mail waits in the outbox. Answers the banner's line too.
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import type { SimulatorListener } from "./simulator-listeners.ts";
import type { Db } from "../db/tenant.ts";
import type { MailCatcher } from "../simulators/mail-catcher.ts";
import { smtpSender } from "../modules/mail/smtp.ts";
import { startMailWorker, type MailWorker } from "../workers/mail/worker.ts";

/** Where the catcher's page listens first (the port after the portal's); a free one if taken, unless MAIL_CATCHER_PORT names it. */
const CATCHER_PAGE = { host: "127.0.0.1", port: 4006 };

export interface MailRuntime {
  description: string;
  /** The mail catcher's listeners, for the banner's Simulators line. */
  listeners?: SimulatorListener[];
  stop(): Promise<void>;
}

export async function startMail(
  config: Pick<Config, "worker" | "environment" | "mail" | "simulatorPorts"> & Partial<Pick<Config, "role">>,
  db: Db,
  logger: Logger,
  clock: () => Date,
): Promise<MailRuntime> {
  if (!config.worker) return { description: `no mail worker here (${config.role === "api" ? "ROLE=api" : "WORKER=off"})`, stop: async () => {} };
  let catcher: MailCatcher | null = null;
  let smtpUrl = config.mail.smtpUrl;
  if (smtpUrl === null && config.environment === "test") {
    const { mailCatcher, mailCatcherSmtp } = config.simulatorPorts;
    // The catcher's SMTP server and parser load only in a sandbox that uses them.
    const { startMailCatcher } = await import("../simulators/mail-catcher.ts");
    catcher = await startMailCatcher({
      page: mailCatcher === null ? CATCHER_PAGE : { ...CATCHER_PAGE, port: mailCatcher, strict: true },
      ...(mailCatcherSmtp === null ? {} : { smtpPort: mailCatcherSmtp }),
    });
    smtpUrl = catcher.smtpUrl;
  }
  if (smtpUrl === null) return { description: "not sent: set SMTP_URL (queued mail: npm run cli -- mail:list)", stop: async () => {} };
  const sender = smtpSender({ smtpUrl, from: config.mail.from, timeoutMs: config.mail.timeoutMs });
  const worker: MailWorker = startMailWorker({
    db,
    sender,
    logger,
    clock,
    messageIdDomain: config.mail.fromDomain,
    timeoutMs: config.mail.timeoutMs,
  });
  const target = new URL(smtpUrl);
  return {
    ...(catcher
      ? {
          listeners: [
            { name: "mail page", url: catcher.pageUrl!, variable: "MAIL_CATCHER_PORT" },
            { name: "mail SMTP", url: catcher.smtpUrl, variable: "MAIL_CATCHER_SMTP_PORT" },
          ],
        }
      : {}),
    // The server only, never the credentials in SMTP_URL.
    description: catcher
      ? `caught on ${catcher.pageUrl}; set SMTP_URL to send`
      : `sent through ${target.protocol}//${target.host} as ${config.mail.from}`,
    async stop() {
      await worker.stop();
      await catcher?.close();
    },
  };
}
