// How many runs, which seed, and how a failure is reported: fast-check's report (seed, path,
// shrunk counterexample) with the counterexample written as a readable request.
import fc from "fast-check";

/** How many generated requests each property (one operation or tool, one family) sends. */
export interface RunCounts {
  perFamily: number;
  /** "oversized" values are a handful of megabyte-sized bodies: fewer runs of them. */
  oversized: number;
}

/** The slow tier's counts. */
export const FULL_RUNS: RunCounts = { perFamily: 20, oversized: 8 };
/** The fast tier's: every operation (or tool) and every family that applies to it, met twice (oversized once). */
export const FAST_RUNS: RunCounts = { perFamily: 2, oversized: 1 };

/** The tier's counts, unless HOSTILE_RUNS (a long run: HOSTILE_RUNS=500) sets every family's. */
export function runCounts(tier: RunCounts): RunCounts {
  const runs = Number(process.env.HOSTILE_RUNS);
  return runs > 0 ? { perFamily: runs, oversized: runs } : tier;
}

export const runsFor = (counts: RunCounts, family: string): number => (family === "oversized" ? counts.oversized : counts.perFamily);

/** Base seed; each property derives its own from its name, so one can be replayed alone. */
export const SEED = Number(process.env.HOSTILE_SEED ?? 20261123);

/** A budget the rate limit never exhausts: hostile runs must meet validation, not 429. */
export const GENEROUS_BUDGET: readonly { name: string; limit: number; windowMs: number }[] = [{ name: "minute", limit: 1e9, windowMs: 60_000 }];

function seedOf(name: string): number {
  let h = SEED | 0;
  for (const ch of name) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return h;
}

/** Gives the generated value a readable form in fast-check's counterexample. */
export function readable<T extends object>(value: T, describe: (v: T) => string): T {
  return Object.defineProperty(value, fc.toStringMethod, { value: () => describe(value), enumerable: false });
}

/** How long one generated request (sent, answered, its effects checked) may take. */
const CASE_TIMEOUT_MS = 60_000;

/**
 * Asserts `check` on `numRuns` generated values. `check` returns a short outcome ("422
 * VALIDATION_FAILED", "200"); HOSTILE_STATS=1 prints how often each came up, to see what a
 * property actually exercised, and HOSTILE_TRACE=<regexp> prints each value whose outcome matches.
 */
export async function runProperty<T>(name: string, arbitrary: fc.Arbitrary<T>, check: (value: T) => Promise<string>, numRuns: number): Promise<void> {
  const tally = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(arbitrary, async (value) => {
      const outcome = await check(value);
      tally.set(outcome, (tally.get(outcome) ?? 0) + 1);
      if (process.env.HOSTILE_TRACE && new RegExp(process.env.HOSTILE_TRACE).test(outcome)) console.log(`${outcome} <- ${fc.stringify(value)}`);
    }),
    // A case that does not finish fails with its counterexample instead of holding up the file.
    { numRuns, seed: seedOf(name), includeErrorInReport: true, timeout: CASE_TIMEOUT_MS },
  );
  if (process.env.HOSTILE_STATS) console.log(`      ${name}: ${[...tally].map(([k, n]) => `${k} x${n}`).join(", ")}`);
}
