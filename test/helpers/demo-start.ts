// What a first `npm start` on an empty data folder hands a walkthrough: the Stripe twin's address
// (from the banner), the demo creator's password, token and project (from the credentials file),
// and a REST caller with that token (writes carry a fresh Idempotency-Key; a non-2xx fails).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEMO_CREDENTIALS_FILE } from "../../src/first-start.ts";

export interface DemoStart {
  twinUrl: string;
  password: string;
  token: string;
  projectId: string;
  api: (method: string, path: string, body?: unknown) => Promise<any>;
}

export function demoStart(banner: string, dataDir: string, apiPort: string): DemoStart {
  const twinUrl = /Payments\s+Stripe simulated on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)![1]!;
  const secrets = readFileSync(join(dataDir, DEMO_CREDENTIALS_FILE), "utf8");
  const password = /creator\s+demo@subbridge\.local \(password (\S+)\)/.exec(secrets)![1]!;
  const token = /token\s+(sbt_test_\d+_[A-Za-z0-9]+)/.exec(secrets)![1]!;
  const projectId = /project\s+([0-9a-f-]{36})/.exec(secrets)![1]!;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://localhost:${apiPort}/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { "content-type": "application/json", "idempotency-key": randomUUID() } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const json = (await res.json()) as any;
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  return { twinUrl, password, token, projectId, api };
}
