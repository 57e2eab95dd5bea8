// Names and codes a project holds once, created twice at the same moment: one creation wins, the
// other answers the same 422 as a sequential duplicate (the unique index catches what the check
// cannot see), never a 500.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { createPlan, createResource } from "../resources/support.ts";

describe("simultaneous duplicates in the catalog", function () {
  this.timeout(60_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });

  it("lets one of two coupons with one code through, the other answers 422 on code", async () => {
    const project = suite.creator.projectIds[0]!;
    const code = `SAME${randomUUID().slice(0, 6)}`;
    const body = { code, percent_off: 10 };
    const answers = await Promise.all([0, 1].map(() => suite.client.post(`/v1/projects/${project}/coupons`, body)));
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, 422], JSON.stringify(answers.map((a) => a.body)));
    assert.ok(answers.find((a) => a.status === 422)!.body.error.fields.code);
  });

  it("lets one of two plans with one name through, the other answers 422 on name", async () => {
    const project = suite.creator.projectIds[0]!;
    const first = await createPlan(suite.client, suite.creator, project);
    const perk = await createResource(suite.client, project);
    const name = `Same ${randomUUID().slice(0, 6)}`;
    const body = { name, price: { amount: 500, currency: "EUR" }, billing_cycle: "month", resources: [perk.id] };
    const answers = await Promise.all([0, 1].map(() => suite.client.post(`/v1/projects/${project}/plans`, body)));
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, 422], JSON.stringify(answers.map((a) => a.body)));
    assert.ok(answers.find((a) => a.status === 422)!.body.error.fields.name);
    // Renaming a plan to a taken name: the same refusal.
    const renamed = await suite.client.request("PATCH", `/v1/projects/${project}/plans/${first.id}`, { body: { name } });
    assert.equal(renamed.status, 422);
  });
});
