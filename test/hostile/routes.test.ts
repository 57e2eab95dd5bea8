// The hostile properties of the providers' routes and the portal at the fast tier's counts.
import { describeRouteHostile } from "./route-properties.ts";
import { FAST_RUNS, runCounts } from "./run.ts";

describeRouteHostile(runCounts(FAST_RUNS));
