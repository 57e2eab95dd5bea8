// How many runs, which seed, and how a failure is reported: fast-check's report (seed, path,
// shrunk counterexample) with the counterexample written as a readable request.
import fc from "fast-check";

/** Runs per operation (or tool) and family; HOSTILE_RUNS=500 for a long run. */
export const RUNS = Number(process.env.HOSTILE_RUNS ?? 20);
/**
 * Runs of a family per operation (or tool): RUNS, but at most 8 for "oversized", whose values are
 * a handful of megabyte-sized bodies (20 runs of them took over two minutes of the suite per
 * backend); HOSTILE_RUNS raises every family alike.
 */
export function runsFor(family: string): number {
  return family === "oversized" && !process.env.HOSTILE_RUNS ? Math.min(RUNS, 8) : RUNS;
}

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

/**
 * Asserts `check` on RUNS generated values. `check` returns a short outcome ("422
 * VALIDATION_FAILED", "200"); HOSTILE_STATS=1 prints how often each came up, to see what a
 * property actually exercised, and HOSTILE_TRACE=<regexp> prints each value whose outcome matches.
 */
export async function runProperty<T>(name: string, arbitrary: fc.Arbitrary<T>, check: (value: T) => Promise<string>, numRuns = RUNS): Promise<void> {
  const tally = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(arbitrary, async (value) => {
      const outcome = await check(value);
      tally.set(outcome, (tally.get(outcome) ?? 0) + 1);
      if (process.env.HOSTILE_TRACE && new RegExp(process.env.HOSTILE_TRACE).test(outcome)) console.log(`${outcome} <- ${fc.stringify(value)}`);
    }),
    { numRuns, seed: seedOf(name), includeErrorInReport: true },
  );
  if (process.env.HOSTILE_STATS) console.log(`      ${name}: ${[...tally].map(([k, n]) => `${k} x${n}`).join(", ")}`);
}
