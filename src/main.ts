// npm start: opens the backends (embedded defaults: PGlite under DATA_DIR, in-process KV), runs
// migrations, seeds a demo account on the first start of an empty embedded database, and serves
// every surface of this release and the job worker in one process. Each surface can also run alone
// (SURFACES=api WORKER=off), and the worker alone (SURFACES= WORKER=on). This module does what
// comes before the listeners answer (configuration, the database's claim, the ports) and stops
// the process; src/serve.ts, imported once they answer, does the rest.
import type { Server } from "node:http";
import type { Logger } from "pino";
import { ConfigError, loadConfig, type Config, type SurfaceName } from "./config.ts";
import { EmbeddedDatabaseError } from "./embedded/shared.ts";
import { createLogger, openServiceDatabase } from "./services.ts";
import { StartStopped, startSteps } from "./startup.ts";
import { createHttpServer, listen, stopServer } from "./http/server.ts";
import { createStartingApp } from "./http/starting-app.ts";
import { readinessProbe, type ReadinessProbe } from "./observability/readiness.ts";
import { loadConnectorRegistry } from "./modules/connectors/registry.ts";
import { ConnectorLoadError } from "./modules/connectors/problems.ts";
import { readRepositoryText } from "./repository-files.ts";
import { setAlertAddresses } from "./modules/alerts/links.ts";
import type { Running } from "./serve.ts";

const release = (JSON.parse(readRepositoryText("package.json")) as { version: string }).version;

/** `surface` listening on host:port, answering as a starting process until its app takes over (replaceApp). */
function listenStarting(surface: string, port: number, host: string, config: Config, logger: Logger, readiness?: ReadinessProbe): Promise<Server> {
  const app = createStartingApp({ surface, release: config.release, docsUrl: config.docs.url, logger, ...(readiness ? { readiness } : {}) });
  return listen(createHttpServer(app, config.http, { docsUrl: config.docs.url, logger }), port, host);
}

/** Set once a signal asked the process to stop: the shutdown ends it, whatever the start was doing. */
let stopping = false;

async function main() {
  const config = loadConfig(process.env, release);
  setAlertAddresses({ auth: config.auth.url, portal: config.portal.url, api: config.api.url });
  // Before the backends open: an invalid connector package refuses the start without side effects.
  const connectors = loadConnectorRegistry(config.connectorsDir);
  const logger = createLogger(config.logLevel);
  const readiness = readinessProbe({});
  const steps = startSteps(logger);
  // The embedded database is claimed before any port is taken: a second server on one DATA_DIR is told so.
  // PGlite itself opens behind the listeners (openServices waits for it), as it is most of a restart.
  const database = await openServiceDatabase(config, logger);
  // Listening from here: /up answers, /ready says 503 until every step below is done (src/startup.ts).
  const surfaces = new Map<SurfaceName, Server>();
  for (const name of config.surfaces) {
    const ready = name === "api" || name === "mcp" ? readiness : undefined;
    surfaces.set(name, await listenStarting(name, config[name].port, config.host, config, logger, ready));
  }
  const metricsServer =
    config.metrics.port !== null ? await listenStarting("metrics", config.metrics.port, config.metrics.host, config, logger, readiness) : null;
  const servers = [...surfaces.values(), ...(metricsServer ? [metricsServer] : [])];
  const running: Running = {};
  const shutdown = async (signal: string) => {
    // A signal sent to the process group reaches this process twice under `npm start` (directly,
    // and relayed by npm): the repeat must not cut short the running job's graceful stop.
    if (stopping) return;
    stopping = true;
    logger.info({ signal, deadline_ms: config.shutdownTimeoutMs }, "shutting down");
    readiness.markStopping();
    steps.stop();
    // Every wait below is bounded, and so is their sum: a stop that stalls still ends the process.
    setTimeout(() => {
      logger.error({ signal, afterMs: config.shutdownTimeoutMs }, "graceful shutdown did not finish in time; exiting");
      logger.flush();
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    // The listeners take no new connection; requests in flight, the running job and the delivery
    // attempts under way finish (their outcomes recorded) before the backends close.
    await Promise.all([
      running.worker?.stop(),
      running.deliveries?.stop(),
      running.mail?.stop(),
      running.botMessages?.stop(),
      ...servers.map(stopServer),
    ]);
    await running.platforms?.close();
    await running.stripe?.close();
    await (running.services ? running.services.close() : database.close());
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));

  // Loaded behind the listeners: most of a start is importing these modules (src/serve.ts).
  const { serve } = await import("./serve.ts");
  await serve({ config, logger, connectors, readiness, steps, database, surfaces, metricsServer }, running);
}

/** Whether `err` is a listener's address that does not resolve or is not this machine's (HOST, METRICS_HOST). */
function listenAddressFailed(err: unknown): boolean {
  const { code, syscall, hostname } = err as { code?: string; syscall?: string; hostname?: string };
  if (code === "EADDRNOTAVAIL" && syscall === "listen") return true;
  return (code === "ENOTFOUND" || code === "EAI_AGAIN") && hostname !== undefined && [process.env.HOST, process.env.METRICS_HOST].includes(hostname);
}

main().catch((err: unknown) => {
  // A stop during the start: the shutdown ends the process (a step it cut short may throw here).
  if (stopping || err instanceof StartStopped) return;
  if (err instanceof ConfigError) {
    console.error(`configuration error: ${err.message}`);
  } else if (err instanceof EmbeddedDatabaseError) {
    console.error(err.message);
  } else if (err instanceof ConnectorLoadError) {
    console.error(`${err.message}\nFix the files above (or remove the package folder) and start again.`);
  } else if ((err as { code?: string }).code === "EADDRINUSE") {
    const { port } = err as { port?: number };
    console.error(
      `port ${port} is already in use: stop the other process or choose another port (API_PORT, DOCS_PORT, ..., METRICS_PORT, MAIL_CATCHER_PORT, SIMULATED_PLATFORMS_PORT, STRIPE_TWIN_PORT)`,
    );
  } else if (listenAddressFailed(err)) {
    const { hostname, address } = err as { hostname?: string; address?: string };
    console.error(
      `configuration error: cannot listen on ${hostname ?? address} (${(err as { code: string }).code}): set HOST (or METRICS_HOST) to an address of this machine (0.0.0.0, ::, 127.0.0.1) or a hostname that resolves to one`,
    );
  } else if ((err as { code?: string }).code === "EACCES" && (err as { syscall?: string }).syscall === "listen") {
    const { port } = err as { port?: number };
    console.error(`configuration error: port ${port} needs privileges this process lacks: choose a port above 1023 (API_PORT, ..., METRICS_PORT)`);
  } else {
    console.error(err);
  }
  process.exit(1);
});
