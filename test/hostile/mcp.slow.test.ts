// The hostile MCP properties at the slow tier's full counts.
import { describeMcpHostile } from "./mcp-properties.ts";
import { FULL_RUNS, runCounts } from "./run.ts";

describeMcpHostile(runCounts(FULL_RUNS));
