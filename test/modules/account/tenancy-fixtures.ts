// Tenancy fixtures of the Account area (see test/tenancy/types.ts). Identities and alert
// destinations belong to the person, not to a team or a project (no `outside`): another creator's
// ids answer 404, and nobody routes alerts to an account or address that is not theirs.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { testDatabase } from "../../helpers/backends.ts";
import type { TestCreator } from "../../helpers/fixtures.ts";
import { expectReached, expectRefused } from "../../tenancy/callers.ts";
import type { AreaFixtures } from "../../tenancy/types.ts";
import { createDomainContext, systemActor } from "../../../src/db/tenant.ts";
import { linkIdentity } from "../../../src/modules/account/identities.ts";

/** Links a fresh platform account to the creator, as a connector would. */
async function linked(creator: TestCreator) {
  const { db } = await testDatabase();
  const ctx = createDomainContext(db, { ...systemActor(creator.teamId), userId: creator.userId }, new Date());
  return linkIdentity(ctx, { connector: "telegram", accountId: `tg-${randomBytes(5).toString("hex")}`, displayName: "@probe" });
}

export const tenancyFixtures: AreaFixtures = {
  unlink_identity: {
    async create({ owner }) {
      return { identity: (await linked(owner)).id };
    },
    outside: null,
    async exists(_scope, { identity }) {
      return (await (await testDatabase()).db("identities").where({ id: identity }).first("id")) !== undefined;
    },
  },
  list_identities: {
    restOnly: "account:read is enforced on REST only (label R)",
    async probe({ teamA, teamB, b }) {
      const ofA = await linked(teamA);
      const seen = expectReached(await b.call("list_identities")).data.map((i: { id: string }) => i.id);
      assert.ok(!seen.includes(ofA.id));
      const ofB = await linked(teamB);
      assert.ok(expectReached(await b.call("list_identities")).data.some((i: { id: string }) => i.id === ofB.id));
    },
  },
  list_alert_destinations: {
    restOnly: "account:read is enforced on REST only (label R)",
    async probe({ teamA, a, b }) {
      const account = await linked(teamA);
      expectReached(
        await a.call("replace_alert_destinations", {
          body: { destinations: [{ kind: "connector_identity", target: account.account_id, classes: null }] },
        }),
      );
      const seenByB = expectReached(await b.call("list_alert_destinations")).data as { target: string }[];
      assert.ok(!seenByB.some((d) => d.target === account.account_id));
    },
  },
  replace_alert_destinations: {
    restOnly: "account:write is enforced on REST only (label R)",
    async probe({ teamA, b }) {
      const account = await linked(teamA);
      expectRefused(
        await b.call("replace_alert_destinations", { body: { destinations: [{ kind: "connector_identity", target: account.account_id }] } }),
        ["RESOURCE_NOT_FOUND"],
      );
      expectRefused(await b.call("replace_alert_destinations", { body: { destinations: [{ kind: "email", target: teamA.email }] } }), [
        "RESOURCE_NOT_FOUND",
      ]);
    },
  },
};
