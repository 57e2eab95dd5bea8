// Property-based hostile input over the REST surface, derived from generated/openapi.json and the
// operation table: for every operation and every family of hostile values, requests with one
// hostile place among valid-looking values. Every answer keeps the invariants (invariants.ts) and
// every refusal the spec requires happens (oracle.ts); a refused write changes no row.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { startApi, type RunningApi } from "../helpers/server.ts";
import { operationModels, type OperationModel } from "./spec-model.ts";
import { FAMILIES } from "./hostile-values.ts";
import { describeCase, restCases, type RestCase, type RestFamily } from "./rest-cases.ts";
import { expectRest } from "./oracle.ts";
import { checkEnvelope, checkRestAnswer } from "./invariants.ts";
import { closeConnections, header, send } from "./raw-http.ts";
import { GENEROUS_BUDGET, readable, runProperty, runsFor, SEED, type RunCounts } from "./run.ts";
import { hostileWorld, type World } from "./world.ts";

const REST_FAMILIES: RestFamily[] = [...FAMILIES, "framing"];

/** The properties, `counts` runs each (the fast tier's rest.test.ts and the slow tier's rest.slow.test.ts). */
export function describeRestHostile(counts: RunCounts): void {
  describe(`hostile input over REST (generated from the spec; ${counts.perFamily} runs per operation and family, ${counts.oversized} oversized, seed ${SEED})`, function () {
    this.timeout(300_000);
    let api: RunningApi;
    let world: World;

    before(async () => {
      api = await startApi({ budget: GENEROUS_BUDGET });
      world = await hostileWorld();
    });
    after(async () => {
      closeConnections();
      await api?.close();
    });

    /** Sends one case; a 401 means a hostile DELETE took the token: mint another and send again. */
    async function exercise(model: OperationModel, c: RestCase): Promise<string> {
      const expected = expectRest(model, c);
      for (let attempt = 0; ; attempt++) {
        const before = model.op.write ? await world.teamRows() : null;
        const headers: Record<string, string> = { ...c.headers, authorization: `Bearer ${world.token}` };
        if (model.op.write) headers["idempotency-key"] = randomUUID();
        const answer = await send(api.url, c.method, c.target, headers, c.body);
        if (answer.status === 401 && !model.op.public && attempt === 0) {
          checkEnvelope(answer.json, 401, header(answer, "x-request-id"), `${c.op.id} 401`);
          await world.remint();
          continue;
        }
        checkRestAnswer(model, c, answer, expected);
        if (before && answer.status >= 400) {
          assert.deepEqual(await world.teamRows(), before, `${c.op.id} refused with ${answer.status} but changed rows`);
        }
        return `${answer.status} ${(answer.json as { error?: { code?: string } } | undefined)?.error?.code ?? ""}`.trim();
      }
    }

    for (const model of operationModels) {
      describe(`${model.op.method} ${model.op.path} (${model.op.id})`, () => {
        for (const family of REST_FAMILIES) {
          // Families with no place in this operation (no parameter or body they apply to) are left out.
          if (!restCases(model, family, {})) continue;
          it(family, async () => {
            await world.topUpTokens();
            const cases = restCases(model, family, world.anchors)!.map((c) => readable(c, describeCase));
            await runProperty(`${model.op.id} ${family}`, cases, (c) => exercise(model, c), runsFor(counts, family));
          });
        }
      });
    }
  });
}
