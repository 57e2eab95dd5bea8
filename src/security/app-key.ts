// APP_KEY (AES-256-GCM key for secrets at rest). In the embedded default it is generated on the
// first start and kept under DATA_DIR; processes sharing a database and Redis must share APP_KEY.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { decodeKeyOrThrow } from "../config.ts";

export function loadAppKey(appKey: string | null, dataDir: string): { key: Buffer; source: string } {
  if (appKey) return { key: decodeKeyOrThrow(appKey), source: "APP_KEY" };
  const file = join(dataDir, "app.key");
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString("base64") + "\n", { mode: 0o600, flag: "wx" });
  }
  return { key: decodeKeyOrThrow(readFileSync(file, "utf8").trim()), source: file };
}
