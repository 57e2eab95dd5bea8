// The simulators' listeners as the start banner lists them: each with the variable that moves it.

export interface SimulatorListener {
  name: string;
  url: string;
  /** The setting that moves it (MAIL_CATCHER_PORT, SIMULATED_PLATFORMS_PORT, ...). */
  variable: string;
}

/** `mail page http://127.0.0.1:4006 (MAIL_CATCHER_PORT), ...`, or null when nothing is simulated. */
export function simulatorLine(listeners: readonly SimulatorListener[]): string | null {
  return listeners.length ? listeners.map((l) => `${l.name} ${l.url} (${l.variable})`).join(", ") : null;
}
