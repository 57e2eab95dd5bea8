// The hostile REST properties at the slow tier's full counts.
import { describeRestHostile } from "./rest-properties.ts";
import { FULL_RUNS, runCounts } from "./run.ts";

describeRestHostile(runCounts(FULL_RUNS));
