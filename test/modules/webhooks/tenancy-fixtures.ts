// Tenancy fixtures of the Webhooks area (see test/tenancy/types.ts). An endpoint belongs to its team
// and, when it has a project, to that project: a token restricted to a project allow-list reaches
// only endpoints (and their deliveries) of its projects, never team-wide ones. Endpoints point at a
// local receiver (TEST_WEBHOOK_NETWORK exempts loopback), so the test call's controls succeed.
import assert from "node:assert/strict";
import { testDatabase } from "../../helpers/backends.ts";
import { expectReached, expectRefused } from "../../tenancy/callers.ts";
import type { AreaFixtures, FixtureScope, PathFixture } from "../../tenancy/types.ts";
import type { OperationIO } from "../../../generated/operations.ts";
import { endpointBody, insertDelivery, PUBLIC_URL, startReceiver, type Receiver } from "./support.ts";

let receiver: Promise<Receiver> | null = null;
const receiverUrl = async () => (await (receiver ??= startReceiver())).url;

/**
 * Keeps a team under the endpoint cap (20) through the matrix's many fixtures, which all register on
 * one team: endpoints past its newest ten go (a probe uses at most three at a time).
 */
async function makeRoom(teamId: string): Promise<void> {
  const { db } = await testDatabase();
  const older = db("webhook_endpoints")
    .where({ team_id: teamId })
    .orderBy([{ column: "created_at", order: "desc" }, { column: "id" }])
    .offset(10)
    .select("id");
  await db("webhook_endpoints").whereIn("id", older).delete();
}

async function endpointOf(scope: FixtureScope, projectId: string | null): Promise<{ webhook_endpoint: string }> {
  await makeRoom(scope.owner.teamId);
  const body = endpointBody({ url: await receiverUrl(), ...(projectId ? { project_id: projectId } : {}) });
  const res = await scope.rest.post("/v1/webhook-endpoints", body);
  if (res.status !== 201) throw new Error(`webhook endpoint not created: ${JSON.stringify(res.body)}`);
  return { webhook_endpoint: res.body.data.id as string };
}

const dead = { status: "dead", attempts: 8, next_attempt_at: null };

const endpointFixture = (extra: Partial<PathFixture<"webhook_endpoint">> = {}): PathFixture<"webhook_endpoint"> => ({
  create: (scope, within) => endpointOf(scope, within?.[0] ?? null),
  // Outside an allow-list: a team-wide endpoint, and one of a project outside it.
  async outside(scope, allowList) {
    const other = scope.owner.projectIds.find((p) => !allowList.includes(p))!;
    return [await endpointOf(scope, null), await endpointOf(scope, other)];
  },
  async exists({ owner }, { webhook_endpoint: id }) {
    return (await (await testDatabase()).db("webhook_endpoints").where({ id, team_id: owner.teamId }).first("id")) !== undefined;
  },
  ...extra,
});

/** A registration body (a public literal address: nothing is sent to it). */
const creation = (projectId: string | null): OperationIO["create_webhook_endpoint"]["body"] => ({
  name: "Tenancy endpoint",
  url: PUBLIC_URL,
  events: ["subscription.created"],
  ...(projectId ? { project_id: projectId } : {}),
});

const ids = (page: { data: { id: string }[] }) => page.data.map((e) => e.id);

export const tenancyFixtures: AreaFixtures = {
  get_webhook_endpoint: endpointFixture(),
  update_webhook_endpoint: endpointFixture({ body: () => ({ name: "Renamed endpoint" }) }),
  delete_webhook_endpoint: endpointFixture(),
  rotate_webhook_endpoint_secret: endpointFixture(),
  test_webhook_endpoint: endpointFixture(),
  list_webhook_deliveries: endpointFixture(),
  // A dead delivery of an endpoint made as endpointFixture makes it (team-wide or a project's).
  replay_webhook_delivery: {
    async create(scope, within) {
      const { webhook_endpoint } = await endpointOf(scope, within?.[0] ?? null);
      return { webhook_delivery: (await insertDelivery(scope.owner.teamId, webhook_endpoint, dead)).id };
    },
    async outside(scope, allowList) {
      const other = scope.owner.projectIds.find((p) => !allowList.includes(p))!;
      const deadOf = async (projectId: string | null) => ({
        webhook_delivery: (await insertDelivery(scope.owner.teamId, (await endpointOf(scope, projectId)).webhook_endpoint, dead)).id,
      });
      return [await deadOf(null), await deadOf(other)];
    },
    async exists({ owner }, { webhook_delivery: id }) {
      return (await (await testDatabase()).db("webhook_deliveries").where({ id, team_id: owner.teamId }).first("id")) !== undefined;
    },
  },

  list_webhook_endpoints: {
    async probe({ teamA, a, b, restricted }) {
      const [p1, p2] = teamA.projectIds as [string, string];
      await makeRoom(teamA.teamId);
      const made = async (project: string | null) =>
        expectReached(await a.call("create_webhook_endpoint", { body: creation(project) })).data.id as string;
      const [teamWide, ofP1, ofP2] = [await made(null), await made(p1), await made(p2)];
      const seenByB = ids(expectReached(await b.call("list_webhook_endpoints", { query: { per_page: 100 } })));
      for (const id of [teamWide, ofP1, ofP2]) assert.ok(!seenByB.includes(id), "team B never sees team A's endpoints");
      const seenByP1 = ids(expectReached(await (await restricted(teamA, [p1])).call("list_webhook_endpoints", { query: { per_page: 100 } })));
      assert.ok(seenByP1.includes(ofP1), "a token restricted to P1 sees P1's endpoint");
      for (const id of [teamWide, ofP2]) assert.ok(!seenByP1.includes(id), "a token restricted to P1 sees neither team-wide nor P2 endpoints");
      const seenByA = ids(expectReached(await a.call("list_webhook_endpoints", { query: { per_page: 100 } })));
      for (const id of [teamWide, ofP1, ofP2]) assert.ok(seenByA.includes(id), "team A's full token sees all of them");
    },
  },

  create_webhook_endpoint: {
    async probe({ teamA, a, b, restricted }) {
      const [p1, p2] = teamA.projectIds as [string, string];
      await makeRoom(teamA.teamId);
      const body = (project?: string) => ({ body: creation(project ?? null) });
      expectRefused(await b.call("create_webhook_endpoint", body(p1)), ["RESOURCE_NOT_FOUND"]);
      expectReached(await b.call("create_webhook_endpoint", body()), "team B registers for its own team");
      const r = await restricted(teamA, [p1]);
      expectRefused(await r.call("create_webhook_endpoint", body(p2)), ["TENANT_MISMATCH"]);
      expectRefused(await r.call("create_webhook_endpoint", body()), ["TENANT_MISMATCH"]);
      expectReached(await r.call("create_webhook_endpoint", body(p1)), "a token restricted to P1 registers for P1");
      expectReached(await a.call("create_webhook_endpoint", body(p2)), "team A's full token registers for P2");
    },
  },

  retry_dead_webhook_deliveries: {
    async probe({ teamA, a, b, restricted }) {
      const [p1, p2] = teamA.projectIds as [string, string];
      await makeRoom(teamA.teamId);
      const { db } = await testDatabase();
      const made = async (project: string | null) =>
        expectReached(await a.call("create_webhook_endpoint", { body: creation(project) })).data.id as string;
      const endpoints = { teamWide: await made(null), ofP1: await made(p1), ofP2: await made(p2) };
      const deliveries = Object.fromEntries(
        await Promise.all(Object.entries(endpoints).map(async ([k, id]) => [k, (await insertDelivery(teamA.teamId, id, dead)).id] as const)),
      );
      const status = async (key: string) =>
        ((await db("webhook_deliveries").where({ id: deliveries[key] }).first("status")) as { status: string }).status;

      expectRefused(await b.call("retry_dead_webhook_deliveries", { body: { endpoint_id: endpoints.ofP1 } }), ["RESOURCE_NOT_FOUND"]);
      expectReached(await b.call("retry_dead_webhook_deliveries", { body: {} }), "team B re-queues its own");
      for (const key of Object.keys(endpoints)) assert.equal(await status(key), "dead", "team B re-queued nothing of team A's");

      const r = await restricted(teamA, [p1]);
      expectRefused(await r.call("retry_dead_webhook_deliveries", { body: { endpoint_id: endpoints.ofP2 } }), ["RESOURCE_NOT_FOUND"]);
      expectRefused(await r.call("retry_dead_webhook_deliveries", { body: { endpoint_id: endpoints.teamWide } }), ["RESOURCE_NOT_FOUND"]);
      expectReached(await r.call("retry_dead_webhook_deliveries", { body: {} }), "a token restricted to P1 re-queues P1's");
      assert.deepEqual([await status("ofP1"), await status("ofP2"), await status("teamWide")], ["queued", "dead", "dead"]);
      expectReached(await a.call("retry_dead_webhook_deliveries", { body: {} }), "team A's full token re-queues the rest");
      assert.deepEqual([await status("ofP2"), await status("teamWide")], ["queued", "queued"]);
    },
  },

  // Samples hold no team data: every team sees the same ones.
  list_webhook_events: {
    async probe({ a, b }) {
      const ofA = expectReached(await a.call("list_webhook_events", { query: { per_page: 10 } }));
      const ofB = expectReached(await b.call("list_webhook_events", { query: { per_page: 10 } }));
      assert.deepEqual(ofA.data, ofB.data);
    },
  },
};
