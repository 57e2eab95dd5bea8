// The operator's commands, run by src/cli.ts (`npm run cli -- <command>`): each returns what the
// command prints as JSON; a refusal throws, and failureMessage says it in words (no stack).
//   npm run cli -- creator:create --email E --password P --tier free|starter|growth
//   npm run cli -- token:mint --email E --abilities all|a,b,c [--project UUID ...] [--name N]
//   npm run cli -- project:create --email E --name N
//   npm run cli -- migrate
//   npm run cli -- jobs:list
//   npm run cli -- jobs:run <name> [--now ISO]
//   npm run cli -- mail:list [--email E]
//   npm run cli -- payments:refunds-owed
import { parseArgs } from "node:util";
import pino from "pino";
import { ConfigError, loadConfig, type Config, type Env } from "./config.ts";
import { migrate, openConfiguredDatabase, type OpenedDatabase } from "./db/database.ts";
import { EmbeddedDatabaseError } from "./embedded/shared.ts";
import { ApiError } from "./errors.ts";
import { createDomainContext } from "./db/tenant.ts";
import { TIERS } from "./modules/teams/tier.ts";
import type { Tier } from "./modules/teams/tier.ts";
import { createProject } from "./modules/projects/projects.ts";
import { AccountError, createCreatorAccount, mintTokenForCreator } from "./operator.ts";
import { findCreatorByEmail } from "./modules/account/creators.ts";
import { pendingMail } from "./modules/mail/outbox.ts";
import { loggerOptions } from "./services.ts";
import { discoverScheduledJobs, ScheduledJobError } from "./workers/jobs/discovery.ts";
import { runLogged } from "./workers/jobs/worker.ts";
import { openPlatforms } from "./outside/platforms.ts";
import { loadConnectorRegistry } from "./modules/connectors/registry.ts";
import { setAlertAddresses } from "./modules/alerts/links.ts";
import { loadAppKey } from "./security/app-key.ts";
import { openStripe } from "./outside/stripe.ts";
import { listOwedRefunds } from "./modules/payments/reconcile-refunds.ts";

export const USAGE = `usage: npm run cli -- <command> [options]
  creator:create --email E --password P --tier ${TIERS.join("|")}
  token:mint     --email E --abilities all|a,b,c [--project UUID ...] [--name NAME]
  project:create --email E --name NAME
  migrate
  jobs:list
  jobs:run       <name> [--now ISO-8601 time, default now]
  mail:list      [--email E]   messages waiting in the outbox (no mail sender exists yet)
  payments:refunds-owed        refunds owed to members that the provider has not confirmed yet`;

export class UsageError extends Error {}

function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== "string" || v === "") throw new UsageError(`--${name} is required`);
  return v;
}

function isoTime(raw: string): Date {
  const at = new Date(raw);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(raw) || Number.isNaN(at.getTime())) {
    throw new UsageError(`--now must be an ISO 8601 time such as 2026-11-23T12:00:00Z, got "${raw}"`);
  }
  return at;
}

/** jobs:run's job and time; the run is the worker's, at once and in this process (jobs are idempotent). */
async function jobToRun(positionals: string[], now: string | undefined) {
  const [name, ...extra] = positionals;
  if (!name || extra.length) throw new UsageError("jobs:run takes one job name");
  const job = (await discoverScheduledJobs()).find((j) => j.name === name);
  if (!job) throw new ScheduledJobError(`no scheduled job named ${name} (npm run cli -- jobs:list)`);
  return { job, now: now === undefined ? null : isoTime(now) };
}

export interface CommandEnvironment {
  /** The variables the configuration is read from (src/config.ts). */
  env: Env;
  /**
   * Opens the configured database: by default PostgreSQL at DATABASE_URL, or the embedded one in
   * DATA_DIR (the running server's, through its socket, when one runs). Tests pass their own.
   */
  openDatabase?: (config: Config) => Promise<OpenedDatabase>;
}

function openForCommand(config: Config): Promise<OpenedDatabase> {
  // With the embedded database, this command connects to the running server's socket if there is
  // one (and sees what it sees); alone, it opens the database itself for the command's duration.
  return openConfiguredDatabase({
    url: config.databaseUrl,
    directUrl: config.databaseDirectUrl,
    timeouts: config.databaseTimeouts,
    dataDir: config.dataDir,
    mode: "share",
  });
}

/** Runs one command (`argv` without the program); resolves to what it prints. */
export async function runOperatorCommand(argv: string[], environment: CommandEnvironment): Promise<unknown> {
  const [command, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      email: { type: "string" },
      password: { type: "string" },
      tier: { type: "string" },
      abilities: { type: "string" },
      project: { type: "string", multiple: true },
      name: { type: "string" },
      now: { type: "string" },
    },
    strict: true,
    allowPositionals: command === "jobs:run",
  });
  const config = loadConfig(environment.env);
  // A job run here raises alerts and notices as the server would: their links use this configuration's addresses.
  setAlertAddresses({ auth: config.auth.url, portal: config.portal.url, api: config.api.url });
  if (command === "jobs:list") return (await discoverScheduledJobs()).map(({ name, cron, description }) => ({ name, cron, description }));
  // Refused before the database opens: a misspelt name or time touches nothing.
  const jobRun = command === "jobs:run" ? await jobToRun(positionals, values.now) : null;
  const database = await (environment.openDatabase ?? openForCommand)(config);
  const { db } = database;
  try {
    const applied = await migrate(db);
    const now = new Date();
    switch (command) {
      case "migrate":
        return { applied };
      case "jobs:run": {
        const at = jobRun!.now ?? now;
        const logger = pino(loggerOptions(config.logLevel), pino.destination(2));
        // Jobs that act on a platform reach it as the server does: simulated when the server would be, the running
        // start's simulation when there is one (what a person changed on its page).
        const platforms = await openPlatforms(config.platforms, { dataDir: config.dataDir, serves: false });
        const appKey = loadAppKey(config.appKey, config.dataDir).key;
        // Stripe as configured (STRIPE_SECRET_KEY ...); never a simulated twin of its own, which would know none of the
        // server's payments (the server's twin lives in its process).
        const stripe = await openStripe({ ...config.stripe, simulated: false }, config.api.url, appKey);
        try {
          const platformAccess = { platforms: platforms.endpoints, appKey, connectors: loadConnectorRegistry(config.connectorsDir) };
          const { changed } = await runLogged(jobRun!.job, { db, now: at, logger, platformAccess, stripe: stripe.payments });
          return { name: jobRun!.job.name, now: at.toISOString(), changed };
        } finally {
          await stripe.close();
          await platforms.close();
        }
      }
      case "payments:refunds-owed":
        // Money owed back to members (a payment made while their subscription was live) that no refund has settled yet.
        return await listOwedRefunds(db);
      case "mail:list":
        // The outbox is the only way sign-up and invitation links leave the service until a sender exists.
        return await pendingMail(db, values.email);
      case "creator:create": {
        const tier = required(values, "tier").toLowerCase();
        if (!TIERS.includes(tier as Tier)) throw new UsageError(`--tier must be one of ${TIERS.join(", ")}`);
        return await createCreatorAccount(db, { email: required(values, "email"), password: required(values, "password"), tier: tier as Tier }, now);
      }
      case "token:mint": {
        const abilities = required(values, "abilities");
        return await mintTokenForCreator(
          db,
          {
            email: required(values, "email"),
            abilities:
              abilities === "all"
                ? "all"
                : abilities
                    .split(",")
                    .map((a) => a.trim())
                    .filter(Boolean),
            projectIds: values.project ?? [],
            ...(values.name ? { name: values.name } : {}),
            environment: config.environment,
          },
          now,
        );
      }
      case "project:create": {
        const creator = await findCreatorByEmail(db, required(values, "email"));
        if (!creator?.current_team_id) throw new AccountError(`no creator with a team for ${values.email}`);
        const actor = {
          userId: creator.id,
          teamId: creator.current_team_id,
          projectIds: null,
          kind: "system" as const,
          credentialKind: null,
          requestId: null,
        };
        const project = await db.transaction((trx) => createProject(createDomainContext(trx, actor, now), { name: required(values, "name") }));
        return { project_id: project.id, handle: project.handle, team_id: creator.current_team_id };
      }
      default:
        throw new UsageError(command ? `unknown command ${command}` : "a command is required");
    }
  } finally {
    await database.close();
  }
}

/** What a failed command says on stderr: the refusal in words, or the unexpected error whole. */
export function failureMessage(err: unknown): string {
  if (err instanceof UsageError) return `${err.message}\n${USAGE}`;
  if (err instanceof AccountError || err instanceof ScheduledJobError || err instanceof ConfigError || err instanceof EmbeddedDatabaseError)
    return err.message;
  if (err instanceof ApiError) return `${err.code}: ${err.message}`;
  if (err instanceof TypeError && (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) return `${err.message}\n${USAGE}`;
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
