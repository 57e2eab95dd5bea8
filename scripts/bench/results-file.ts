// What every benchmark's results file carries and where it goes: scripts/bench/results/<name>.json.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";

/** The machine a figure was measured on (figures are machine-dependent, recorded not asserted). */
export function machine() {
  return { node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model, memory_gb: Math.round(totalmem() / 2 ** 30) };
}

/** Writes `report` to scripts/bench/results/<name>.json and says so. */
export function writeResults(name: string, report: unknown): void {
  const dir = new URL("./results/", import.meta.url).pathname;
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}${name}.json`, JSON.stringify(report, null, 2) + "\n");
  console.log(`-> scripts/bench/results/${name}.json`);
}
