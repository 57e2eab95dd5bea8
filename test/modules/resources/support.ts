// What the catalog tests (resources, payment methods, plans, pass windows, coupons) share: a
// project with a connector installed (rows written directly: the installation API is another
// area's), payment methods set up through the domain function the dashboard uses, and snapshots.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createDomainContext, systemActor } from "../../../src/db/tenant.ts";
import { createPaymentMethod, type Provider } from "../../../src/modules/payment-methods/payment-methods.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { eventsOf } from "../../helpers/events.ts";
import type { ApiClient, TestResponse } from "../../helpers/http.ts";
import { tokenFor, type TestCreator } from "../../helpers/fixtures.ts";
import { grantableAbilities, holdsAbility } from "../../../src/modules/tokens/abilities.ts";
import { expectError } from "../../helpers/http.ts";
import { seedInstallation } from "../../helpers/platforms.ts";

export function patch(client: ApiClient, path: string, body: unknown): Promise<TestResponse> {
  return client.request("PATCH", path, { body });
}

/** The project's installation of `connector` (as installing it would record it). */
export function installConnector(creator: TestCreator, projectId: string, connector = "telegram"): Promise<string> {
  return seedInstallation(creator.teamId, projectId, connector);
}

/** A payment method set up the way the dashboard's provider setup does it. */
export async function setUpPaymentMethod(
  creator: TestCreator,
  projectId: string,
  input: { provider?: Provider; currencies?: string[]; billing_cycles?: string[]; enabled?: boolean; name?: string } = {},
) {
  const { db } = await testDatabase();
  const actor = { ...systemActor(creator.teamId), userId: creator.userId };
  return db.transaction((trx) =>
    createPaymentMethod(createDomainContext(trx, actor, new Date()), projectId, {
      provider: input.provider ?? "stripe",
      currencies: input.currencies ?? ["EUR"],
      billing_cycles: input.billing_cycles ?? ["month", "year"],
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      ...(input.name !== undefined ? { name: input.name } : {}),
    }),
  );
}

/** A resource of the project (a Telegram manual perk unless told), made over REST. */
export async function createResource(client: ApiClient, projectId: string, body: Record<string, unknown> = {}) {
  const res = await client.post(`/v1/projects/${projectId}/resources`, { connector: "telegram", kind: "perk", title: "A perk", ...body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data as { id: string; project_id: string; title: string; kind: string; grant_mode: string };
}

/** A draft plan granting `resources` (a new perk when none given), made over REST. */
export async function createPlan(client: ApiClient, creator: TestCreator, projectId: string, body: Record<string, unknown> = {}) {
  await installConnector(creator, projectId);
  const resources = (body.resources as string[] | undefined) ?? [(await createResource(client, projectId)).id];
  const res = await client.post(`/v1/projects/${projectId}/plans`, {
    name: `Plan ${randomUUID().slice(0, 8)}`,
    price: { amount: 999, currency: "EUR" },
    billing_cycle: "month",
    ...body,
    resources,
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data as {
    id: string;
    project_id: string;
    name: string;
    status: string;
    resources: string[];
    price: { amount: number; currency: string };
  };
}

/** Rows, activity entries and events of a team: a refused call must leave all of them alone. */
export async function teamSnapshot(teamId: string, tables: string[]) {
  const { db } = await testDatabase();
  const rows: Record<string, unknown[]> = {};
  for (const table of tables) {
    const order = table === "plan_resources" ? ["plan_id", "resource_id"] : ["created_at", "id"];
    rows[table] = await db(table).where({ team_id: teamId }).orderBy(order).select("*");
  }
  return {
    rows,
    activity: Number((await db("activity_log").where({ team_id: teamId }).whereNot({ event: "tool_invoked" }).count({ n: "*" }).first())!.n),
    events: (await eventsOf(teamId)).length,
  };
}

/** The team's activity entries named `event` about the subject. */
export async function activityOf(teamId: string, event: string, subjectId: string) {
  const { db } = await testDatabase();
  return (await db("activity_log").where({ team_id: teamId, event, subject_id: subjectId }).select("*")) as {
    subject_type: string;
    project_id: string;
    properties: Record<string, any>;
  }[];
}

/**
 * The guards of one route: 401 without a credential, 403 TOKEN_MISSING_ABILITY naming `ability`
 * for a token of the same team holding everything else the route's area needs, nothing written.
 */
export async function expectGuarded(
  client: ApiClient,
  creator: TestCreator,
  route: { method: string; path: string; ability: string; body?: unknown },
): Promise<void> {
  const anonymous = await client.request(route.method, route.path, { token: "", ...(route.body !== undefined ? { body: route.body } : {}) });
  assert.equal(anonymous.status, 401, `${route.method} ${route.path} without a token: ${JSON.stringify(anonymous.body)}`);
  assert.equal(anonymous.body.error.code, "AUTHENTICATION_REQUIRED");
  // Everything except the ability and whatever satisfies it.
  const others = grantableAbilities.filter((a) => a !== route.ability && !holdsAbility(new Set([a]), route.ability));
  const { token } = await tokenFor(creator, [...others]);
  const before = await teamSnapshot(creator.teamId, []);
  const refused = await client.request(route.method, route.path, { token, ...(route.body !== undefined ? { body: route.body } : {}) });
  assert.equal(refused.status, 403, `${route.method} ${route.path} without ${route.ability}: ${JSON.stringify(refused.body)}`);
  assert.equal(refused.body.error.code, "TOKEN_MISSING_ABILITY");
  assert.equal(refused.body.error.context.required_ability, route.ability);
  assert.deepEqual(await teamSnapshot(creator.teamId, []), before, "a refused call writes nothing");
}

/** A write refused with 422 naming `field` (or a field under it), and nothing changed. */
export async function expectFieldRefusal(send: () => Promise<TestResponse>, field: string, snapshot: () => Promise<unknown>): Promise<void> {
  const before = await snapshot();
  const error = expectError(await send(), 422, "VALIDATION_FAILED");
  assert.ok(
    Object.keys(error.fields ?? {}).some((k) => k.startsWith(field)),
    `${field}: ${JSON.stringify(error.fields)}`,
  );
  assert.deepEqual(await snapshot(), before);
}
