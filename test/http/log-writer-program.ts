// A process that logs as the server does (createLogger): one line, then nothing more until its
// stdin closes, then a last line, flushed as the server flushes on shutdown. test/http/log-batches.slow.test.ts.
import { createLogger } from "../../src/services.ts";

const logger = createLogger("info");
logger.info({ step: "first" }, "a line with nothing after it");
process.stdin.resume();
process.stdin.on("end", () => {
  logger.info({ step: "last" }, "the line before shutdown");
  logger.flush();
  process.exit(0);
});
