// Helpers of the webhooks tests: a local receiver (http, or https with a certificate of the test CA
// that .mocharc.cjs trusts, on loopback, which TEST_WEBHOOK_NETWORK exempts), endpoint creation, and
// delivery rows written as the dispatcher writes them.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { ulid } from "ulid";
import { testDatabase } from "../../helpers/backends.ts";
import type { ApiClient } from "../../helpers/http.ts";

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** The status the next requests are answered with (default 200). */
  status: number;
  /** Answers nothing at all (the sender's time-out decides). */
  hang: boolean;
  close(): Promise<void>;
}

const tlsFile = (name: string) => readFileSync(new URL(`../../fixtures/tls/${name}`, import.meta.url));

/**
 * A receiver on loopback: plain http, or https with a certificate the test CA signed ("trusted",
 * for localhost, receiver.test, 127.0.0.1 and ::1) or a self-signed one ("untrusted").
 */
export async function startReceiver(options: { tls?: "trusted" | "untrusted"; host?: string } = {}): Promise<Receiver> {
  const received: Received[] = [];
  const receiver = { received, status: 200, hang: false } as Receiver;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      if (receiver.hang) return;
      res.writeHead(receiver.status, { "content-type": "text/plain" }).end(receiver.status < 300 ? "ok" : "nope");
    });
  };
  const server = options.tls
    ? createTlsServer(
        options.tls === "trusted"
          ? { key: tlsFile("receiver.key"), cert: tlsFile("receiver.pem") }
          : { key: tlsFile("untrusted.key"), cert: tlsFile("untrusted.pem") },
        handle,
      )
    : createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.unref();
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `${options.tls ? "https" : "http"}://${options.host ?? "127.0.0.1"}:${receiver.port}/hook`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** A public address literal (no DNS needed); nothing is ever sent to it by these tests. */
export const PUBLIC_URL = "https://93.184.215.14/hooks/subbridge";

export const endpointBody = (extra: Record<string, unknown> = {}) => ({
  name: `Endpoint ${randomUUID().slice(0, 8)}`,
  url: PUBLIC_URL,
  events: ["subscription.created", "plan.*"],
  ...extra,
});

export async function createEndpoint(client: ApiClient, extra: Record<string, unknown> = {}) {
  const res = await client.post("/v1/webhook-endpoints", endpointBody(extra));
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { data: { id: string; [k: string]: any }; secret: string };
}

/** A delivery row of an endpoint, as the dispatcher writes it. */
export async function insertDelivery(
  teamId: string,
  endpointId: string,
  fields: Record<string, unknown> = {},
): Promise<{ id: string; [column: string]: any }> {
  const { db } = await testDatabase();
  const endpoint = (await db("webhook_endpoints").where({ id: endpointId }).first("project_id")) as { project_id: string | null };
  const now = new Date();
  const row = {
    id: randomUUID(),
    team_id: teamId,
    endpoint_id: endpointId,
    project_id: endpoint.project_id,
    event_id: `evt_${ulid()}`,
    event_type: "subscription.created",
    status: "queued",
    attempts: 0,
    next_attempt_at: now,
    created_at: now,
    updated_at: now,
    ...fields,
  };
  await db("webhook_deliveries").insert(row);
  return row;
}
