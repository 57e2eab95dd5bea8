// A token lacking the operation's ability gets 403 TOKEN_MISSING_ABILITY naming it, on every
// operation of the table; holding it (or an ability that satisfies it) is enough.
import assert from "node:assert/strict";
import { ApiClient, expectError } from "../helpers/http.ts";
import { tokenFor } from "../helpers/fixtures.ts";
import { authenticatedOperations, samplePath } from "../helpers/operations.ts";
import { grantableAbilities, holdsAbility } from "../../src/modules/tokens/abilities.ts";
import { abilityCatalog } from "../../generated/catalog.ts";
import { useApiWithCreator } from "../helpers/suite.ts";

describe("abilities", () => {
  const suite = useApiWithCreator();

  it("covers every authenticated operation with exactly one catalog ability", () => {
    assert.ok(authenticatedOperations.length > 0);
    for (const op of authenticatedOperations) {
      assert.ok(op.ability && op.ability in abilityCatalog, `${op.id} names a catalog ability`);
      assert.ok(["RM", "R"].includes(op.enforcement!), `${op.id}: ${op.ability} is enforced`);
    }
  });

  for (const op of authenticatedOperations) {
    it(`${op.method} ${op.path} (${op.id}) requires ${op.ability}`, async () => {
      const without = grantableAbilities.filter((a) => !holdsAbility(new Set([a]), op.ability!));
      const narrow = await tokenFor(suite.creator, without);
      const res = await new ApiClient(suite.api.url, narrow.token).request(
        op.method,
        samplePath(op, { project: suite.creator.projectIds[0]!, team: suite.creator.teamId }),
        op.body ? { body: {} } : {},
      );
      const error = expectError(res, 403, "TOKEN_MISSING_ABILITY");
      assert.deepEqual(error.context, { required_ability: op.ability });
      assert.ok(error.message.includes(op.ability!));
    });
  }

  it("lets the holder of the ability through", async () => {
    const narrow = await tokenFor(suite.creator, ["team:view"]);
    const client = new ApiClient(suite.api.url, narrow.token);
    assert.equal((await client.get("/v1/teams/current")).status, 200);
    expectError(await client.get("/v1/tokens"), 403, "TOKEN_MISSING_ABILITY");
  });

  it("honours the catalog's satisfies relations", () => {
    assert.ok(holdsAbility(new Set(["project-subscription-plan:view-any"]), "pass-window:view-any"));
    assert.ok(!holdsAbility(new Set(["pass-window:view-any"]), "project-subscription-plan:view-any"));
    const manage = new Set(["webhook-endpoint:manage"]);
    for (const a of ["create", "delete", "update", "view", "view-any"]) assert.ok(holdsAbility(manage, `webhook-endpoint:${a}`));
    assert.ok(holdsAbility(manage, "webhook-delivery:retry") && holdsAbility(manage, "webhook-delivery:view-any"));
    assert.ok(!holdsAbility(manage, "token:view-any"));
  });

  it("counts the table: 107 abilities, 106 grantable (webhook-endpoint:manage is retired)", () => {
    assert.equal(Object.keys(abilityCatalog).length, 107);
    assert.equal(grantableAbilities.length, 106);
    assert.ok(!grantableAbilities.includes("webhook-endpoint:manage"));
  });
});
