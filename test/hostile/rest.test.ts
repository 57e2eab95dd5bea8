// The hostile REST properties at the fast tier's counts: every operation and family, a few requests each.
import { describeRestHostile } from "./rest-properties.ts";
import { FAST_RUNS, runCounts } from "./run.ts";

describeRestHostile(runCounts(FAST_RUNS));
