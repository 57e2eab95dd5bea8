// What a role grants bounds its holders' tokens: from the next request, REST and MCP alike, never
// beyond what a token carries, with the catalog's `satisfies` relations and retired abilities.
import assert from "node:assert/strict";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { createTestCreator, joinTeamWithToken } from "../../helpers/fixtures.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { expectReached } from "../../tenancy/callers.ts";
import { createDomainContext } from "../../../src/db/tenant.ts";
import { holdsAbility } from "../../../src/modules/tokens/abilities.ts";
import { lookupToken, mintToken, parseBearer, verifyToken } from "../../../src/modules/tokens/tokens.ts";
import { patch, refused, useRolesTeam } from "./support.ts";

describe("roles: what a role grants", () => {
  const team = useRolesTeam();

  it("from the very next request, REST and MCP alike, twice in a row in each state", async () => {
    const role = await team.createRole(["team:view", "token:view-any"], "Viewers");
    const holder = await createTestCreator({ label: "roles-viewer" });
    const token = (await joinTeamWithToken(team.owner, holder, ["team:view", "token:view-any"], role.code)).token;
    const rest = await team.callers.caller("rest", token, "holder over REST");
    const overMcp = await team.callers.caller("mcp", token, "holder over MCP");
    const expectState = async (allowed: boolean, state: string) => {
      for (const caller of [rest, overMcp]) {
        for (const attempt of [1, 2]) {
          const result = await caller.call("get_current_team");
          if (allowed) {
            assert.equal(expectReached(result, `${state}, attempt ${attempt}`).data.id, team.owner.teamId);
          } else {
            refused(result, "TOKEN_MISSING_ABILITY");
            assert.equal((result.body as any).error.context?.required_ability, "team:view", `${state}, attempt ${attempt}`);
            if (result.status !== null) assert.equal(result.status, 403);
          }
          // What the role still grants keeps working throughout.
          expectReached(await caller.call("list_tokens", { query: { per_page: 10 } }), `${state}: token:view-any is still granted`);
        }
      }
    };
    await expectState(true, "role grants team:view");
    assert.equal((await patch(team.client, `/v1/roles/${role.id}`, { abilities: ["token:view-any"] })).status, 200);
    await expectState(false, "team:view removed from the role");
    assert.equal((await patch(team.client, `/v1/roles/${role.id}`, { abilities: ["team:view", "token:view-any"] })).status, 200);
    await expectState(true, "team:view put back");
    assert.equal((await patch(team.client, `/v1/roles/${role.id}`, { abilities: ["token:view-any"] })).status, 200);
    await expectState(false, "team:view removed again");
  });

  it("a token never acts beyond what it carries, whatever the role grants", async () => {
    const role = await team.createRole(["team:view", "token:view-any", "activity:read"], "Generous");
    const holder = await createTestCreator({ label: "roles-narrow" });
    const token = (await joinTeamWithToken(team.owner, holder, ["token:view-any"], role.code)).token;
    const asHolder = new ApiClient(team.api.url, token);
    expectError(await asHolder.get("/v1/teams/current"), 403, "TOKEN_MISSING_ABILITY");
    assert.equal((await asHolder.get("/v1/tokens")).status, 200);
  });

  // The catalog's `satisfies` relations hold on both sides: a token carrying an ability that
  // satisfies another, held by a member whose role grants that other one, may use it.
  it("counts abilities satisfied through the catalog when narrowing a token by its role", async () => {
    const role = await team.createRole(["team:view", "pass-window:view-any"], "Pass viewers");
    const holder = await createTestCreator({ label: "roles-satisfies" });
    const minted = await joinTeamWithToken(team.owner, holder, ["team:view", "project-subscription-plan:view-any"], role.code);
    const { db } = await testDatabase();
    const parsed = parseBearer(minted.token)!;
    const resolved = verifyToken((await lookupToken(db, parsed.id, new Date()))!, parsed.secret, new Date())!;
    assert.ok(resolved.abilities.has("team:view"));
    assert.ok(!holdsAbility(resolved.abilities, "project-subscription-plan:view-any"), "the role does not grant the plans themselves");
    assert.ok(
      holdsAbility(resolved.abilities, "pass-window:view-any"),
      `the token carries pass-window:view-any (through project-subscription-plan:view-any) and the role grants it; resolved: ${[...resolved.abilities].join(", ")}`,
    );
  });

  it("keeps what a retired ability still grants on a legacy token when the role grants it (admin)", async () => {
    const holder = await createTestCreator({ label: "roles-legacy" });
    await joinTeamWithToken(team.owner, holder, ["team:view"], "admin");
    const { db } = await testDatabase();
    // A token minted before webhook-endpoint:manage was retired (minting refuses it now).
    const actor = {
      userId: holder.userId,
      teamId: team.owner.teamId,
      projectIds: null,
      kind: "system" as const,
      credentialKind: null,
      requestId: null,
    };
    const minted = await db.transaction((trx) =>
      mintToken(createDomainContext(trx, actor, new Date()), { name: "legacy", abilities: ["team:view"] }, null),
    );
    await db("personal_access_tokens")
      .where({ id: minted.data.id })
      .update({ abilities: JSON.stringify(["team:view", "webhook-endpoint:manage"]) });
    const parsed = parseBearer(minted.token)!;
    const resolved = verifyToken((await lookupToken(db, parsed.id, new Date()))!, parsed.secret, new Date())!;
    for (const ability of ["webhook-endpoint:view-any", "webhook-endpoint:create", "webhook-delivery:retry"]) {
      assert.ok(
        holdsAbility(resolved.abilities, ability),
        `${ability}: admin grants it and the legacy token carries it; resolved: ${[...resolved.abilities].join(", ")}`,
      );
    }
  });
});
