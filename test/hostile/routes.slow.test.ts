// The hostile properties of the providers' routes and the portal at the slow tier's full counts.
import { describeRouteHostile } from "./route-properties.ts";
import { FULL_RUNS, runCounts } from "./run.ts";

describeRouteHostile(runCounts(FULL_RUNS));
