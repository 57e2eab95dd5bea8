// Dashboard numbers, team-wide and per project: checked against seeded subscriptions and
// transactions around a fixed window (boundaries included), with another project's and another
// team's rows that must not count; the period presets and the window's validation.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { expectError } from "../../helpers/http.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { createTestCreator, tokenFor, type TestCreator } from "../../helpers/fixtures.ts";
import { connectMcp, startMcp, type RunningMcp } from "../../helpers/mcp.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { account, codesFor, expectCredentialRefusals, redeem, seedPlan, type SeededPlan } from "../subscriptions/commerce.ts";
import { seedTransaction } from "../transactions/support.ts";

const at = (day: string) => new Date(`2026-${day}T00:00:00.000Z`);
const WINDOW = "from=2026-06-01T00:00:00.000Z&to=2026-07-01T00:00:00.000Z";

/** A subscription to `plan` redeemed at `created`, then cancelled and/or ended when given. */
async function subscription(creator: TestCreator, plan: SeededPlan, created: Date, ends: { canceled?: Date; expired?: Date } = {}) {
  const [code] = await codesFor(creator, plan);
  const redemption = await redeem(creator, plan.projectId, code!, account(), created);
  const { db } = await testDatabase();
  if (ends.canceled || ends.expired) {
    await db("subscriptions")
      .where({ id: redemption.subscription.id })
      .update({ status: ends.expired ? "expired" : "canceled", canceled_at: ends.canceled ?? null, expired_at: ends.expired ?? null });
  }
  return redemption;
}

const usd = (gross: number, refunded: number, fees: number, transactions: number, redemptions: number, disputed = 0) => ({
  currency: "USD",
  gross,
  refunded,
  disputed,
  fees,
  net: gross - refunded - disputed - fees,
  transactions,
  redemptions,
});
const eur = { currency: "EUR", gross: 400, refunded: 0, disputed: 0, fees: 10, net: 390, transactions: 1, redemptions: 0 };
// Telegram Stars: whole stars in XTR, a currency of its own (never added to another).
const xtr = { currency: "XTR", gross: 250, refunded: 0, disputed: 0, fees: 0, net: 250, transactions: 1, redemptions: 0 };

describe("analytics", () => {
  const suite = useApiWithCreator({ creator: { label: "analytics", projects: 2 } });
  let mcp: RunningMcp;
  const plans = {} as Record<"a" | "b" | "c", SeededPlan>;
  before(async () => {
    mcp = await startMcp({ baseUrl: suite.api.url });
    const creator = suite.creator;
    plans.a = await seedPlan(creator);
    plans.b = await seedPlan(creator);
    plans.c = await seedPlan(creator, { projectIndex: 1 });
    await subscription(creator, plans.a, at("05-15")); // before the window, still active
    const a2 = await subscription(creator, plans.a, at("06-10"), { canceled: at("06-20") }); // new, canceled, runs on
    const b1 = await subscription(creator, plans.b, at("06-05"), { canceled: at("06-25"), expired: at("06-25") }); // new, ended
    await subscription(creator, plans.b, at("07-05")); // after the window
    await subscription(creator, plans.a, at("04-01"), { expired: at("05-01") }); // over before the window
    const c1 = await subscription(creator, plans.c, at("06-15")); // the other project
    await seedTransaction(creator, a2, { amount: 900, fee: 30, at: at("06-12") });
    await seedTransaction(creator, a2, { amount: 400, fee: 10, currency: "EUR", at: at("06-13") });
    await seedTransaction(creator, a2, { kind: "refund", amount: 200, at: at("06-14") });
    await seedTransaction(creator, a2, { status: "failed", amount: 999, at: at("06-14") });
    await seedTransaction(creator, a2, { status: "pending", amount: 999, at: at("06-14") });
    // Disputes: only a lost one (succeeded: the money went back) takes from revenue; open (pending) and won (failed) ones do not.
    await seedTransaction(creator, a2, { kind: "dispute", status: "succeeded", amount: 150, at: at("06-15") });
    await seedTransaction(creator, a2, { kind: "dispute", status: "pending", amount: 300, at: at("06-15") });
    await seedTransaction(creator, a2, { kind: "dispute", status: "failed", amount: 250, at: at("06-15") });
    await seedTransaction(creator, a2, { amount: 250, currency: "XTR", at: at("06-16") });
    await seedTransaction(creator, b1, { amount: 100, at: at("06-01") }); // from is inclusive
    await seedTransaction(creator, b1, { amount: 500, at: at("07-01") }); // to is exclusive
    await seedTransaction(creator, c1, { amount: 700, at: at("06-20") });
    // Another team's rows in the same window never count.
    const stranger = await createTestCreator({ label: "analytics-stranger" });
    const theirs = await seedPlan(stranger);
    await seedTransaction(stranger, await subscription(stranger, theirs, at("06-10")), { amount: 5000, at: at("06-11") });
  });
  after(() => mcp?.close());
  const project = (i: number) => `/v1/projects/${suite.creator.projectIds[i]}/analytics`;

  it("counts a project's members, subscriptions and revenue per currency and per plan over the window", async () => {
    const res = await suite.client.get(`${project(0)}?${WINDOW}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const data = res.body.data;
    assert.equal(data.project_id, suite.creator.projectIds[0]);
    assert.deepEqual(data.period, { preset: null, from: "2026-06-01T00:00:00.000Z", to: "2026-07-01T00:00:00.000Z" });
    assert.deepEqual(data.members, { active: 2, new: 2, churned: 1 });
    assert.deepEqual(data.subscriptions, { active: 2, new: 2, canceled: 2, expired: 1 });
    assert.deepEqual(data.revenue, [eur, usd(1000, 200, 30, 6, 2, 150), xtr]);
    const plan = (id: string) => data.plans.find((p: { plan_id: string }) => p.plan_id === id);
    assert.deepEqual(
      data.plans.map((p: { plan_id: string }) => p.plan_id),
      [plans.a.planId, plans.b.planId],
      "most active first; plans with nothing in the window left out",
    );
    assert.deepEqual(plan(plans.a.planId).subscriptions, { active: 2, new: 1, canceled: 1, expired: 0 });
    assert.deepEqual(plan(plans.a.planId).revenue, [eur, usd(900, 200, 30, 4, 1, 150), xtr]);
    assert.deepEqual(plan(plans.b.planId).subscriptions, { active: 0, new: 1, canceled: 1, expired: 1 });
    assert.deepEqual(plan(plans.b.planId).revenue, [usd(100, 0, 0, 2, 1)]);
    assert.equal(plan(plans.b.planId).project_id, suite.creator.projectIds[0]);
  });

  it("adds up every project the token may see team-wide, and only those inside its allow-list", async () => {
    const team = (await suite.client.get(`/v1/analytics?${WINDOW}`)).body.data;
    assert.equal(team.project_id, null);
    assert.deepEqual(team.members, { active: 3, new: 3, churned: 1 });
    assert.deepEqual(team.subscriptions, { active: 3, new: 3, canceled: 2, expired: 1 });
    assert.deepEqual(team.revenue, [eur, usd(1700, 200, 30, 8, 3, 150), xtr]);
    assert.deepEqual(
      team.plans.map((p: { plan_id: string }) => p.plan_id),
      [plans.a.planId, plans.c.planId, plans.b.planId],
    );
    const onlyP2 = suite.client.withToken((await tokenFor(suite.creator, ["dashboard:read"], [suite.creator.projectIds[1]!])).token);
    const narrowed = (await onlyP2.get(`/v1/analytics?${WINDOW}`)).body.data;
    assert.deepEqual(
      [narrowed.members, narrowed.subscriptions, narrowed.revenue],
      [{ active: 1, new: 1, churned: 0 }, { active: 1, new: 1, canceled: 0, expired: 0 }, [usd(700, 0, 0, 2, 1)]],
    );
    assert.deepEqual(
      narrowed.plans.map((p: { plan_id: string }) => p.plan_id),
      [plans.c.planId],
    );
    expectError(await onlyP2.get(`${project(0)}?${WINDOW}`), 404, "TENANT_MISMATCH");
  });

  it("answers zeros and empty lists where nothing happened", async () => {
    const quiet = (await suite.client.get(`${project(1)}?from=2025-01-01T00:00:00.000Z&to=2025-02-01T00:00:00.000Z`)).body.data;
    assert.deepEqual(
      [quiet.members, quiet.subscriptions, quiet.revenue, quiet.plans],
      [{ active: 0, new: 0, churned: 0 }, { active: 0, new: 0, canceled: 0, expired: 0 }, [], []],
    );
    const fresh = await createTestCreator({ label: "analytics-empty" });
    const empty = (await suite.client.withToken(fresh.token).get("/v1/analytics")).body.data;
    assert.deepEqual([empty.members.active, empty.revenue, empty.plans], [0, [], []]);
  });

  it("takes a period ending now (default 30d), or from and/or to; refuses an empty, reversed or over-long window", async () => {
    const span = (p: { from: string; to: string }) => (Date.parse(p.to) - Date.parse(p.from)) / 86_400_000;
    const byDefault = (await suite.client.get(project(0))).body.data.period;
    assert.deepEqual([byDefault.preset, span(byDefault)], ["30d", 30]);
    assert.ok(Math.abs(Date.parse(byDefault.to) - Date.now()) < 60_000, "ends now");
    for (const preset of ["7d", "14d", "60d", "90d"]) {
      const period = (await suite.client.get(`${project(0)}?period=${preset}`)).body.data.period;
      assert.deepEqual([period.preset, span(period)], [preset, Number.parseInt(preset, 10)]);
    }
    const endingThen = (await suite.client.get(`${project(0)}?period=7d&to=2026-06-08T00:00:00.000Z`)).body.data.period;
    assert.deepEqual(endingThen, { preset: "7d", from: "2026-06-01T00:00:00.000Z", to: "2026-06-08T00:00:00.000Z" });
    const since = (await suite.client.get(`${project(0)}?period=7d&from=2026-06-01T00:00:00.000Z`)).body.data.period;
    assert.equal(since.preset, null, "from wins over the period");
    for (const [q, field] of [
      ["period=5d", "period"],
      ["from=2026-06-01T00:00:00.000Z&to=2026-06-01T00:00:00.000Z", "from"],
      ["from=2026-07-01T00:00:00.000Z&to=2026-06-01T00:00:00.000Z", "from"],
      ["from=2024-01-01T00:00:00.000Z&to=2026-01-01T00:00:00.000Z", "from"],
      ["to=yesterday", "to"],
    ] as const) {
      const error = expectError(await suite.client.get(`${project(0)}?${q}`), 422, "VALIDATION_FAILED");
      assert.deepEqual(Object.keys(error.fields), [field], q);
    }
  });

  it("answers the same numbers as MCP tools", async () => {
    const client = await connectMcp(mcp, suite.creator.token, { headers: { "X-MCP-Toolsets": "analytics" } });
    const window = { from: "2026-06-01T00:00:00.000Z", to: "2026-07-01T00:00:00.000Z" };
    for (const [name, args, path] of [
      ["get_project_analytics", { project: suite.creator.projectIds[0], ...window }, project(0)],
      ["get_team_analytics", window, "/v1/analytics"],
    ] as const) {
      const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent: unknown };
      assert.ok(!result.isError, JSON.stringify(result.structuredContent));
      assert.deepEqual(result.structuredContent, (await suite.client.get(`${path}?${WINDOW}`)).body);
    }
    await client.close();
  });

  it("needs a credential and dashboard:read; another team's project answers 404", async () => {
    await expectCredentialRefusals(suite.client, suite.creator, { method: "GET", path: project(0), ability: "dashboard:read" });
    await expectCredentialRefusals(suite.client, suite.creator, { method: "GET", path: "/v1/analytics", ability: "dashboard:read" });
    expectError(await suite.client.get(`/v1/projects/${randomUUID()}/analytics`), 404, "RESOURCE_NOT_FOUND");
  });
});
