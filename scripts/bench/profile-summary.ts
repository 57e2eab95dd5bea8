// Where each bench server's CPU went while it was measured: every server runs under V8's sampling
// profiler (a sample each BENCH_PROFILE_INTERVAL_US µs, 1,000 unless set: at that rate the
// profiler costs well under 1 % of a busy core), and the samples taken inside the measured slices
// (not start-up, not warm-up) are counted by the area of the frame that was running: a package, a
// directory of ours, a part of Node, the garbage collector. The summary gives each area's share of
// the main thread's busy samples; times it by the scenario's cpu_us_per_request for µs (a sample's
// span is wall time, which a loaded host stretches, so the spans are not summed). V8 stamps its
// samples with the monotonic clock process.hrtime reads: the slices' windows are taken on it here.
// BENCH_PROFILE_DIR=<dir> keeps the .cpuprofile files there (else a temporary folder, removed);
// BENCH_PROFILE=0 runs the servers without the profiler.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const kept = process.env.BENCH_PROFILE_DIR;
/** The profiles' folder, made when the first server starts; null with BENCH_PROFILE=0. */
let dir: string | null | undefined;
const INTERVAL_US = Number(process.env.BENCH_PROFILE_INTERVAL_US ?? 1000);
/** Areas at or above this share (percent) are listed one by one; the smaller ones are summed as "other". */
const LISTED_PERCENT = 0.5;

/** The Node flags that make a server write its profile when it stops; none when profiling is off. */
export function profilerFlags(): string[] {
  dir ??= process.env.BENCH_PROFILE === "0" ? null : (kept ?? mkdtempSync(join(tmpdir(), "subbridge-bench-profiles-")));
  return dir ? ["--cpu-prof", `--cpu-prof-interval=${INTERVAL_US}`, `--cpu-prof-dir=${dir}`] : [];
}

/** Now on the clock V8 stamps its samples with, in µs. */
export function nowUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string } }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** The main thread's busy samples inside the measured slices (idle excluded). */
  samples: number;
  /** Each area's share of them in percent, largest first. */
  percent_by_area: Record<string, number>;
}

/** A frame's area: an npm package, a directory of ours, a module of Node, or one of V8's own entries. */
function areaOf(functionName: string, url: string): string {
  if (!url) return functionName === "(garbage collector)" ? "garbage collection" : functionName || "(native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith("node:"))
    return `node: ${
      url
        .slice(5)
        .replace(/^internal\//, "")
        .split("/")[0]
    }`;
  const ours = /\/(?:dist\/)?(src|generated|scripts)\/(?:([^/]+)\/)?(?:([^/]+)\/)?[^/]*$/.exec(url);
  if (ours) return ours[1] === "src" && ours[2] ? `ours: src/${ours[2]}${ours[2] === "modules" && ours[3] ? `/${ours[3]}` : ""}` : `ours: ${ours[1]}`;
  return url;
}

/** The profile of process `pid` (its main thread) over the given windows; null when profiling is off or the profile is missing. */
export function summarizeProfile(pid: number, windows: readonly [number, number][]): ProfileSummary | null {
  if (!dir) return null;
  const file = readdirSync(dir).find((name) => name.includes(`.${pid}.0.`) && name.endsWith(".cpuprofile"));
  if (!file) return null;
  const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as CpuProfile;
  const areaOfNode = new Map(profile.nodes.map((n) => [n.id, areaOf(n.callFrame.functionName, n.callFrame.url)]));
  const byArea = new Map<string, number>();
  let at = profile.startTime;
  let samples = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i]!;
    const area = areaOfNode.get(profile.samples[i]!)!;
    if (area === "(idle)" || !windows.some(([from, to]) => at >= from && at < to)) continue;
    byArea.set(area, (byArea.get(area) ?? 0) + 1);
    samples += 1;
  }
  if (samples === 0) return null;
  const sorted = [...byArea].sort((a, b) => b[1] - a[1]);
  const percent = (n: number) => Math.round((1000 * n) / samples) / 10;
  const listed = sorted.filter(([, n]) => (100 * n) / samples >= LISTED_PERCENT);
  const rest = samples - listed.reduce((sum, [, n]) => sum + n, 0);
  return {
    samples,
    percent_by_area: Object.fromEntries([...listed.map(([area, n]) => [area, percent(n)]), ...(rest ? [["other", percent(rest)]] : [])]),
  };
}

/** Removes the temporary profiles (BENCH_PROFILE_DIR's are kept). */
export function dropProfiles(): void {
  if (dir && !kept) rmSync(dir, { recursive: true, force: true });
}
