// The hostile MCP properties at the fast tier's counts: every tool and family, a few requests each.
import { describeMcpHostile } from "./mcp-properties.ts";
import { FAST_RUNS, runCounts } from "./run.ts";

describeMcpHostile(runCounts(FAST_RUNS));
