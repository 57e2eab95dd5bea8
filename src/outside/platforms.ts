// Where the connector drivers reach their platforms. In production these are the real hosts
// (config); when the configuration is `simulated` (an embedded start with no platform URL set) the
// process serves the local fake platform on loopback and points every driver at it, so an embedded
// start never contacts an outside host.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PlatformConfig, PlatformEndpoints } from "../config.ts";
import type { SimulatorListener } from "./simulator-listeners.ts";
import { startFakePlatform, type FakePlatform } from "../simulators/platforms/fake-platform.ts";

/**
 * Where a running start's simulation is written down (under DATA_DIR), so an operator command run
 * beside it (`jobs:run recovery.probe`) acts on the same simulated bots and chats a person changed
 * on its page instead of a fresh simulation that knows none of them. Simulated credentials only.
 */
const SIMULATION_FILE = "simulated-platform.json";

/** What a serving start's simulation remembers across restarts (../simulation/state-file.ts), under DATA_DIR. */
export const SIMULATED_STATE_FILE = "simulated-platform-state.json";

export interface OpenedPlatforms {
  endpoints: PlatformEndpoints;
  /** For the start banner. */
  description: string;
  /** The simulator's listeners, for the banner's Simulators line. */
  listeners?: SimulatorListener[];
  close(): Promise<void>;
}

/** The endpoints a fake platform serves (both platforms on one loopback address). */
export function fakePlatformEndpoints(fake: FakePlatform, timeoutMs = 5_000): PlatformEndpoints {
  return { telegramApiUrl: fake.url, discordApiUrl: fake.url, discord: fake.discordApplication, timeoutMs };
}

/**
 * Opens the platforms as configured. Simulated: a process that `serves` starts the simulation and
 * writes it down under `dataDir`; any other (an operator command) joins the one a running start
 * wrote down, when it answers, and starts its own otherwise.
 */
export async function openPlatforms(
  config: PlatformConfig,
  share?: {
    dataDir: string;
    serves: boolean;
    /** Where the simulated Discord's page sends slash commands (the API's interactions route). */ discordInteractionsUrl?: string;
    /** Where a serving start's simulation listens (SIMULATED_PLATFORMS_PORT); null = the last start's port or a free one. */
    port?: number | null;
  },
): Promise<OpenedPlatforms> {
  const { simulated, ...endpoints } = config;
  if (!simulated) {
    return { endpoints, description: `Telegram ${config.telegramApiUrl}, Discord ${config.discordApiUrl}`, close: async () => {} };
  }
  const file = share ? join(share.dataDir, SIMULATION_FILE) : null;
  if (file && !share!.serves) {
    const running = await runningSimulation(file);
    if (running) return { endpoints: running, description: `the running start's simulation on ${running.telegramApiUrl}`, close: async () => {} };
  }
  // Any well-formed bot token and any Discord authorization code is accepted by the simulation.
  const fake = await startFakePlatform({
    acceptAny: true,
    port: share?.serves ? (share.port ?? null) : null,
    ...(share?.discordInteractionsUrl ? { discordInteractionsUrl: share.discordInteractionsUrl } : {}),
    ...(file && share!.serves ? { stateFile: join(share!.dataDir, SIMULATED_STATE_FILE) } : {}),
  });
  const opened = { ...fakePlatformEndpoints(fake, config.timeoutMs), telegramSimulatorPage: `${fake.url}/_sim/telegram` };
  if (file && share!.serves) writeFileSync(file, JSON.stringify(opened), { mode: 0o600 });
  return {
    endpoints: opened,
    listeners: [{ name: "platforms", url: fake.url, variable: "SIMULATED_PLATFORMS_PORT" }],
    description: `simulated on ${fake.url} (a Telegram user's view: ${fake.url}/_sim/telegram; a Discord user's: ${fake.url}/_sim/discord; set TELEGRAM_API_URL / DISCORD_API_URL to reach the real platforms)`,
    close: async () => {
      if (file && share!.serves && existsSync(file) && readFileSync(file, "utf8") === JSON.stringify(opened)) rmSync(file);
      await fake.close();
    },
  };
}

/** The simulation a running start wrote down, when it still answers (a stopped one's file is stale). */
async function runningSimulation(file: string): Promise<PlatformEndpoints | null> {
  if (!existsSync(file)) return null;
  try {
    const endpoints = JSON.parse(readFileSync(file, "utf8")) as PlatformEndpoints;
    const res = await fetch(`${endpoints.telegramApiUrl}/_sim/telegram`, { signal: AbortSignal.timeout(1_000) });
    await res.arrayBuffer();
    return res.ok ? endpoints : null;
  } catch {
    return null;
  }
}
